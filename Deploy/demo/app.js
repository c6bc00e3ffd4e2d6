// The demo front end of modgud-bff: every sign-in method the gateway offers, the account with its
// passkeys and sessions, and sign-out; all through bff.js (Docs/demo.md, Docs/frontend.md).
import { createBff } from './bff.js';
import { $, alertText, clear, run, say, show } from './ui.js';
import { describe, describeCallback } from './messages.js';
import { addPasskey, showAccount } from './account.js';

// The gateway's cookies, its CSRF check and the passkeys' relying party belong to the host
// name `localhost`, never to a loopback address (WebAuthn takes no IP address as its relying
// party): the demo opened as http://127.0.0.1:8080/ moves to the same page on localhost
// before it calls the gateway.
const loopback = ['127.0.0.1', '[::1]'].includes(location.hostname);
if (loopback) location.replace(location.href.replace(location.hostname, 'localhost'));

const bff = createBff();
/** @type {Record<string, boolean>} features from /bff/capabilities */
let features = {};
/** @type {Record<string, boolean>} the sign-in methods shown */
let methods = {};
let email = '';

bff.on('signedout', (error) => {
  if ($('account').hidden) return;
  signInScreen();
  alertText(describe(error));
});
bff.on('stepup', () => $('stepup').open || $('stepup').showModal());

/**
 * Signed in: the account screen.
 * @param {any} me { user, session }
 */
async function signedIn(me) {
  bff.cancelPasskey();
  clear();
  say(`Signed in as ${me.user.email ?? me.user.sub}.`);
  await showAccount(bff, me, features);
}

/** The sign-in screen, with the passkey autofill offered in the e-mail field. */
function signInScreen() {
  show('signin', 'email');
  if (methods.passkey) autofill();
}

function autofill() {
  bff.passkeyAutofill().then((me) => me && signedIn(me)).catch((error) => {
    if (!needsSecondFactor(error)) alertText(describe(error));
  });
}

/**
 * mfa_required: the second-factor prompt.
 * @param {any} error
 * @returns {boolean} true when it was that
 */
function needsSecondFactor(error) {
  if (error?.code !== 'mfa_required') return false;
  $('mfa-browser').hidden = !(error.body?.mfaBrowserMethods?.length && features.codeFlow);
  $('totp').value = '';
  show('mfa', 'totp');
  say(error.body?.resendFirstFactor
    ? 'Enter the code from your authenticator app, then ask for a new e-mail code or link.'
    : 'Enter the code from your authenticator app.');
  return true;
}

/** The e-mail address typed, or null (with the field marked) when it is not one. */
function typedEmail() {
  const input = $('email');
  const value = input.value.trim();
  const ok = /^[^\s@]+@[^\s@]+$/.test(value);
  input.setAttribute('aria-invalid', String(!ok));
  if (!ok) {
    alertText('Enter your e-mail address.');
    input.focus();
    return null;
  }
  return value;
}

/** First and last name for a new account, when the identity provider asks for them. */
function names() {
  if ($('names').hidden) return undefined;
  const firstName = $('given-name').value.trim() || undefined;
  const lastName = $('family-name').value.trim() || undefined;
  return firstName || lastName ? { firstName, lastName } : undefined;
}

/** E-mails a code: for a sign-in, or (`register`) for a new account with the names typed. */
async function sendCode(register = false) {
  const address = typedEmail();
  if (!address) return;
  if (register && !namesComplete()) return;
  const sent = await run($('signin'), () => (register ? bff.register : bff.requestCode)(address, names()));
  if (!sent) return;
  bff.cancelPasskey();
  email = address;
  $('code-email').textContent = email;
  $('otp').value = '';
  show('code', 'otp');
  say(`We sent a code to ${email}.`);
}

/** The name fields the identity provider requires for a new account, marked when empty. */
function namesComplete() {
  const missing = ['given-name', 'family-name'].find((id) => $(id).required && !$(id).value.trim());
  if (!missing) return true;
  alertText(`Enter your ${$(missing).dataset.field} for the new account.`);
  $(missing).setAttribute('aria-invalid', 'true');
  $(missing).focus();
  return false;
}

async function sendLink() {
  const address = typedEmail();
  if (!address) return;
  const sent = await run($('signin'), () => bff.requestMagicLink(address));
  if (!sent) return;
  bff.cancelPasskey();
  $('link-email').textContent = address;
  show('link-sent');
  say('Check your e-mail for the sign-in link.');
}

/** The magic link's landing page: the token leaves the address bar before it is redeemed. */
async function landOnMagicLink() {
  const link = location.href;
  history.replaceState(null, '', '/');
  show('magic');
  const me = await run($('magic'), () => bff.redeemMagicLink(link), needsSecondFactor);
  if (me) await signedIn(me);
}

function wire() {
  $('email-form').addEventListener('submit', (/** @type {Event} */ event) => {
    event.preventDefault();
    methods.emailCode ? sendCode() : sendLink();
  });
  $('send-link').addEventListener('click', sendLink);
  $('register').addEventListener('click', () => sendCode(true));
  $('passkey-signin').addEventListener('click', async () => {
    const me = await run($('signin'), () => bff.passkeySignIn(), needsSecondFactor);
    if (me) await signedIn(me);
    else if (!$('signin').hidden) autofill();
  });
  $('code-flow').addEventListener('click', () => {
    bff.cancelPasskey();
    const hint = $('email').value.trim();
    bff.login({ returnUrl: '/', ...(hint ? { loginHint: hint } : {}) });
  });
  $('code-form').addEventListener('submit', async (/** @type {Event} */ event) => {
    event.preventDefault();
    const code = $('otp').value.trim();
    if (!/^\d{4,8}$/.test(code)) {
      alertText('Enter the code from the e-mail.');
      $('otp').focus();
      return;
    }
    const me = await run($('code'), () => bff.redeemCode(email, code), needsSecondFactor);
    if (me) await signedIn(me);
  });
  $('resend-code').addEventListener('click', async () => {
    const sent = await run($('code'), () => bff.requestCode(email));
    if (sent) say(`We sent a new code to ${email}.`);
  });
  $('mfa-form').addEventListener('submit', async (/** @type {Event} */ event) => {
    event.preventDefault();
    const me = await run($('mfa'), () => bff.mfa($('totp').value.trim()));
    if (me) await signedIn(me);
    else $('totp').select();
  });
  $('mfa-browser').addEventListener('click', () => bff.login({ continue: 'mfa', returnUrl: '/' }));
  for (const back of document.querySelectorAll('[data-back]')) {
    back.addEventListener('click', () => { clear(); signInScreen(); });
  }
  $('logout').addEventListener('click', () => signOut(false));
  $('logout-everywhere').addEventListener('click', () => signOut(true));
  $('add-passkey').addEventListener('click', () => addPasskey(bff));
  $('stepup-go').addEventListener('click', () => bff.stepUp('/'));
  $('stepup-cancel').addEventListener('click', () => $('stepup').close());
}

/** @param {boolean} everywhere */
async function signOut(everywhere) {
  /** @type {any} */
  const answer = await run($('account'), () => bff.logout({ everywhere }).then((a) => a ?? {}));
  if (!answer || answer.endSessionUrl) return; // the browser is on its way to the identity provider
  signInScreen();
  say(everywhere ? 'You are signed out on every device.' : 'You are signed out.');
}

/**
 * Shows the sign-in methods that both the gateway and the identity provider offer.
 * @param {any} capabilities /bff/capabilities
 * @param {any} info /bff/app-info (Modgud's), or null
 */
function offer(capabilities, info) {
  const signIn = capabilities.signIn ?? {};
  const realm = info?.SignIn ?? {};
  methods = {
    emailCode: !!signIn.emailCode && realm.EmailCode !== false,
    magicLink: !!signIn.magicLink && info?.MagicLinkSelfService !== false,
    passkey: !!signIn.passkey && realm.Passkey !== false && !!globalThis.PublicKeyCredential,
    codeFlow: !!signIn.codeFlow,
    register: !!signIn.register
  };
  features = { ...capabilities.features, codeFlow: methods.codeFlow };
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button[data-method]'))) {
    b.hidden = !methods[b.dataset.method ?? ''];
  }
  const fields = info?.RegistrationFields ?? {};
  const registration = (info?.SelfRegistration ?? signIn.selfRegistration ?? 'Off') !== 'Off';
  const first = fields.Firstname ?? 'Off';
  const last = fields.Lastname ?? 'Off';
  $('names').hidden = !(registration && (methods.emailCode || methods.register) && (first !== 'Off' || last !== 'Off'));
  for (const [id, field, label] of [['given-name', first, 'First name'], ['family-name', last, 'Last name']]) {
    $(id).hidden = $(`${id}-label`).hidden = field === 'Off';
    $(id).required = field === 'Required' && methods.register;
    $(id).dataset.field = label.toLowerCase();
    $(`${id}-label`).textContent = field === 'Required' ? `${label} (needed for a new account)` : `${label} (optional)`;
  }
  const product = info?.Branding?.ProductName;
  if (product) $('brand').textContent = `${product} · modgud-bff demo`;
}

async function start() {
  wire();
  const [capabilities, info] = await Promise.all([
    bff.capabilities().catch(() => ({ signIn: {}, features: {} })),
    bff.appInfo().catch(() => null)
  ]);
  offer(capabilities, info);
  if (location.pathname === '/magic-login') return landOnMagicLink();
  const failed = describeCallback(new URLSearchParams(location.search).get('error'));
  if (failed) history.replaceState(null, '', '/');
  const me = await bff.user().catch((error) => {
    alertText(describe(error));
    return null;
  });
  if (me) return signedIn(me);
  signInScreen();
  if (failed) alertText(failed);
}

if (!loopback) start();
