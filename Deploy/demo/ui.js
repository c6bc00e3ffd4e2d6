// Screens, messages and the rate-limit countdown: what every part of the demo shares.
import { describe } from './messages.js';

/** @param {string} id @returns {any} */
export const $ = (id) => document.getElementById(id);

const screens = ['loading', 'signin', 'code', 'link-sent', 'magic', 'mfa', 'account'];

/**
 * Shows one screen and moves the focus into it: to `focus` (an element id), else its heading.
 * @param {string} name
 * @param {string} [focus]
 */
export function show(name, focus) {
  for (const s of screens) $(s).hidden = s !== name;
  const target = $(focus ?? `${name}-title`);
  target?.focus();
}

/**
 * Announces a message in the live region (and clears the alert).
 * @param {string} text
 */
export function say(text) {
  $('alert').hidden = true;
  $('status').textContent = text;
}

/**
 * Shows an error in the alert region.
 * @param {string} text
 */
export function alertText(text) {
  $('status').textContent = '';
  $('alert').textContent = text;
  $('alert').hidden = false;
}

/** Clears both message regions. */
export function clear() {
  $('status').textContent = '';
  $('alert').textContent = '';
  $('alert').hidden = true;
}

let countdown = 0;

/**
 * Runs `action` with the buttons of `scope` disabled; shows its error, and for a 429 counts down
 * from Retry-After with the buttons disabled until it ends. Resolves with the action's answer, or
 * undefined when it failed.
 * @template T
 * @param {HTMLElement} scope
 * @param {() => Promise<T>} action
 * @param {(error: any) => boolean} [handled] true when the caller dealt with the error itself
 * @returns {Promise<T | undefined>}
 */
export async function run(scope, action, handled = () => false) {
  const buttons = [...scope.querySelectorAll('button')];
  buttons.forEach((b) => (b.disabled = true));
  let limited = false;
  try {
    return await action();
  } catch (/** @type {any} */ error) {
    if (handled(error)) return undefined;
    if (error?.status === 429) {
      limited = true;
      await countDown(error.retryAfter ?? 1, buttons);
    } else {
      alertText(describe(error));
    }
    return undefined;
  } finally {
    if (!limited) buttons.forEach((b) => (b.disabled = false));
  }
}

/** @param {number} seconds @param {HTMLButtonElement[]} buttons */
async function countDown(seconds, buttons) {
  const mine = ++countdown;
  for (let left = seconds; left > 0 && mine === countdown; left--) {
    alertText(`Too many attempts. Try again in ${left} s.`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  buttons.forEach((b) => (b.disabled = false));
  if (mine === countdown) say('You can try again now.');
}

/**
 * A date and time in the reader's locale.
 * @param {string | undefined} iso
 */
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
