// The signed-in screen: the user card, passkey management and the sessions list.
import { $, run, say, show, when } from './ui.js';

/**
 * The account screen for `me` ({ user, session }); `features` from /bff/capabilities.
 * @param {any} bff
 * @param {{ user: any, session: any }} me
 * @param {Record<string, boolean>} features
 */
export async function showAccount(bff, me, features) {
  const { user, session } = me;
  const name = user.name ?? [user.given_name, user.family_name].filter(Boolean).join(' ');
  $('user-name').textContent = name || user.email || user.sub;
  $('user-email').textContent = name ? user.email ?? '' : '';
  $('user-since').textContent = when(session?.authenticatedAt);
  $('user-expires').textContent = when(session?.expiresAt);
  $('user-sub').textContent = user.sub;
  $('passkeys').hidden = !features.passkeyManagement;
  $('sessions').hidden = !features.sessions;
  show('account');
  await Promise.all([
    features.passkeyManagement && listPasskeys(bff),
    features.sessions && listSessions(bff)
  ]);
}

/** @param {any} bff */
export async function listPasskeys(bff) {
  const passkeys = await run($('passkeys'), () => bff.passkeys());
  if (!passkeys) return;
  const list = $('passkey-list');
  list.replaceChildren(...passkeys.map((/** @type {any} */ p, /** @type {number} */ i) => {
    const label = p.DisplayName || `Passkey ${i + 1}`;
    const remove = button(`Remove`, `Remove ${label}`, 'danger', async () => {
      const done = await run($('passkeys'), () => bff.removePasskey(p.Id).then(() => true));
      if (!done) return;
      say(`${label} removed.`);
      await listPasskeys(bff);
      $('add-passkey').focus();
    });
    return item(label, `Added ${when(p.CreatedAt)}${p.LastUsedAt ? `, last used ${when(p.LastUsedAt)}` : ''}`, remove);
  }));
  $('passkey-none').hidden = passkeys.length > 0;
}

/** @param {any} bff */
export async function addPasskey(bff) {
  const added = await run($('passkeys'), () => bff.addPasskey().then(() => true));
  if (!added) return;
  say('Passkey added. Next time, sign in with it.');
  await listPasskeys(bff);
}

const methods = /** @type {Record<string, string>} */ ({
  otp: 'e-mail code', magic: 'magic link', passkey: 'passkey', code: 'identity provider\'s page',
  app: 'app', 'cross-device': 'another device'
});

/** @param {any} bff */
export async function listSessions(bff) {
  const sessions = await run($('sessions'), () => bff.sessions());
  if (!sessions) return;
  $('session-list').replaceChildren(...sessions.map((/** @type {any} */ s) => {
    const device = s.device || 'Unknown browser';
    const detail = `${s.current ? 'This device. ' : ''}Signed in by ${methods[s.method] ?? 'another way'}`
      + ` ${when(s.createdAt)} from ${s.address || 'an unknown address'}; last seen ${when(s.lastSeenAt)}.`;
    const end = s.current
      ? button('Sign out this device', 'Sign out this device', 'secondary', () => $('logout').click())
      : button('Sign out', `Sign out ${device}`, 'secondary', async () => {
        const done = await run($('sessions'), () => bff.endSession(s.id).then(() => true));
        if (done) say(`${device} signed out.`);
        await listSessions(bff);
        $('logout-everywhere').focus();
      });
    return item(device, detail, end);
  }));
}

/** @param {string} text @param {string} label @param {string} kind @param {() => void} onclick */
function button(text, label, kind, onclick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = kind;
  b.textContent = text;
  if (label !== text) b.setAttribute('aria-label', label);
  b.addEventListener('click', onclick);
  return b;
}

/** @param {string} title @param {string} detail @param {HTMLElement} action */
function item(title, detail, action) {
  const li = document.createElement('li');
  const text = document.createElement('div');
  const strong = document.createElement('strong');
  strong.textContent = title;
  const small = document.createElement('span');
  small.textContent = detail;
  text.append(strong, small);
  li.append(text, action);
  return li;
}
