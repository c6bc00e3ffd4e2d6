// bff.js's helpers: each endpoint, the session calls, the code flow's navigations and the passkey flows.
import { fromBase64url } from './bff.js';
import {
  test, check, equal, bytes, tick, rejection, setup, withPublicKeyCredential, signedIn, requestJSON, creationJSON,
} from './support.js';

// ---- the gateway's endpoints

const endpointCases = [
  // what, call, method, path, body (JSON text or undefined)
  ['capabilities', (b) => b.capabilities(), undefined, '/bff/capabilities', undefined],
  ['appInfo', (b) => b.appInfo(), undefined, '/bff/app-info', undefined],
  ['requestCode', (b) => b.requestCode('ada@example.com', { firstName: 'Ada', lastName: 'L' }), 'POST', '/bff/otp/request',
    '{"email":"ada@example.com","firstName":"Ada","lastName":"L"}'],
  ['register', (b) => b.register('ada@example.com', { firstName: 'Ada' }), 'POST', '/bff/register', '{"email":"ada@example.com","firstName":"Ada"}'],
  ['redeemCode', (b) => b.redeemCode('ada@example.com', '123456'), 'POST', '/bff/otp/redeem', '{"email":"ada@example.com","code":"123456"}'],
  ['redeemCode with TOTP', (b) => b.redeemCode('ada@example.com', '123456', '654321'), 'POST', '/bff/otp/redeem',
    '{"email":"ada@example.com","code":"123456","totpCode":"654321"}'],
  ['requestMagicLink', (b) => b.requestMagicLink('ada@example.com'), 'POST', '/bff/magic/request', '{"email":"ada@example.com"}'],
  ['redeemMagicLink', (b) => b.redeemMagicLink('https://app.example/magic-login?userId=u-1&token=a%2Bb%3D%26c'), 'POST',
    '/bff/magic/redeem', '{"userId":"u-1","token":"a+b=&c"}'],
  ['redeemMagicLink with TOTP', (b) => b.redeemMagicLink('?userId=u-2&token=t2', '111222'), 'POST', '/bff/magic/redeem',
    '{"userId":"u-2","token":"t2","totpCode":"111222"}'],
  ['mfa', (b) => b.mfa('123456'), 'POST', '/bff/mfa', '{"totpCode":"123456"}'],
  ['user', (b) => b.user(), undefined, '/bff/user', undefined],
  ['sessions', (b) => b.sessions(), undefined, '/bff/sessions', undefined],
  ['endSession', (b) => b.endSession('a/b?c'), 'DELETE', '/bff/sessions/a%2Fb%3Fc', undefined],
  ['logout', (b) => b.logout(), 'POST', '/bff/logout', undefined],
  ['logout everywhere', (b) => b.logout({ everywhere: true }), 'POST', '/bff/logout', '{"everywhere":true}'],
  ['passkeys', (b) => b.passkeys(), undefined, '/bff/passkeys', undefined],
  ['removePasskey', (b) => b.removePasskey('p 1/2'), 'DELETE', '/bff/passkeys/p%201%2F2', undefined],
];

test('each helper calls its endpoint with X-CSRF, its method and its JSON body', async () => {
  for (const [what, call, method, path, body] of endpointCases) {
    const { bff, calls } = setup({ body: { sessions: [] } });
    await call(bff);
    equal(calls.length, 1, what + ': one call');
    const { url, init, headers } = calls[0];
    equal([url, init.method, init.body, headers['x-csrf'], headers['content-type']],
      [path, method, body, '1', body === undefined ? undefined : 'application/json'], what);
  }
});

test('redeemMagicLink reads the landing page\'s own URL by default', async () => {
  const before = location.href;
  history.replaceState(null, '', '/magic-login?userId=u-9&token=tok%2F9');
  try {
    const { bff, calls } = setup({ body: signedIn });
    equal(await bff.redeemMagicLink(), signedIn, 'the user');
    equal(calls[0].init.body, '{"userId":"u-9","token":"tok/9"}', 'the body');
  } finally {
    history.replaceState(null, '', before);
  }
});

test('user() is the user, or null without a session; sessions() is the list', async () => {
  const cards = [{ id: 's1', current: true, createdAt: 'c', lastSeenAt: 'l', method: 'otp', device: 'Chrome on Linux', address: '203.0.113.7' }];
  const { bff } = setup([{ body: signedIn }, { status: 401, body: { error: 'unauthenticated' } }, { body: { sessions: cards } },
    { status: 503, body: { error: 'store_unavailable' }, headers: { 'Retry-After': '3' } }]);
  equal(await bff.user(), signedIn, 'signed in');
  equal(await bff.user(), null, 'signed out');
  equal(await bff.sessions(), cards, 'the sessions');
  const error = await rejection(bff.user());
  equal([error.code, error.retryAfter], ['store_unavailable', 3], 'other errors reject');
});

test('logout follows an endSessionUrl unless told not to; a 204 is null', async () => {
  const url = 'https://id.example/connect/logout?id_token_hint=x&state=y';
  const { bff, navigated } = setup([{ body: { endSessionUrl: url } }, { body: { endSessionUrl: url } }, { status: 204 }]);
  equal(await bff.logout(), { endSessionUrl: url }, 'the answer');
  equal(navigated, [url], 'sent there');
  equal(await bff.logout({ endSession: false }), { endSessionUrl: url }, 'the answer again');
  equal(await bff.logout(), null, '204');
  equal(navigated, [url], 'no other navigation');
});

test('login, stepUp and loginUrl send the browser to /bff/login with its parameters', async () => {
  const { bff, calls, navigated } = setup({});
  equal(bff.loginUrl({ returnUrl: '/app?x=1', prompt: 'login', maxAge: 0, loginHint: 'ada@example.com' }),
    '/bff/login?returnUrl=%2Fapp%3Fx%3D1&prompt=login&maxAge=0&loginHint=ada%40example.com', 'every parameter');
  equal(bff.loginUrl(), '/bff/login?returnUrl=' + encodeURIComponent(location.pathname + location.search), 'this page by default');
  bff.login({ returnUrl: '/orders' });
  bff.stepUp('/account');
  bff.login({ continue: 'mfa', returnUrl: '/' });
  equal(navigated, ['/bff/login?returnUrl=%2Forders', '/bff/login?returnUrl=%2Faccount&prompt=login&maxAge=0',
    '/bff/login?returnUrl=%2F&continue=mfa'], 'the navigations');
  equal(calls.length, 0, 'no fetch');
});

// ---- passkeys (a fake navigator.credentials)

const fakeAssertion = { toJSON: () => ({ id: 'cred-1', rawId: 'cred-1', type: 'public-key', response: { signature: 'c2ln' } }) };

test('passkeySignIn: begin, navigator.credentials.get with the decoded options, redeem with the assertion', async () => {
  const { bff, calls, credentials } = setup([{ body: { options: requestJSON } }, { body: signedIn }], { credential: fakeAssertion });
  equal(await bff.passkeySignIn(), signedIn, 'the user');
  equal(calls.map((c) => [c.url, c.init.method, c.init.body]), [['/bff/passkey/begin', 'POST', undefined],
    ['/bff/passkey/redeem', 'POST', JSON.stringify({ assertion: fakeAssertion.toJSON() })]], 'the calls');
  const [request] = credentials.requests;
  equal([request.kind, request.mediation, request.signal instanceof AbortSignal], ['get', undefined, true], 'a modal get');
  equal(bytes(request.publicKey.challenge), bytes(fromBase64url(requestJSON.challenge)), 'the challenge as bytes');
  equal(bytes(request.publicKey.allowCredentials[0].id), [9, 8, 7, 255], 'the credential id as bytes');
  equal([request.publicKey.rpId, request.publicKey.userVerification], ['localhost', 'preferred'], 'the other options');
});

test('passkeySignIn: a refusal at begin or in the browser rejects, nothing is redeemed', async () => {
  const begun = setup({ status: 429, body: { error: 'rate_limited' }, headers: { 'Retry-After': '9' } });
  const error = await rejection(begun.bff.passkeySignIn());
  equal([error.code, error.retryAfter, begun.calls.length, begun.credentials.requests.length], ['rate_limited', 9, 1, 0], 'begin refused');
  const { bff, calls, credentials } = setup({ body: { options: requestJSON } });
  credentials.get = () => Promise.reject(new DOMException('The user dismissed it.', 'NotAllowedError'));
  const dismissed = await rejection(bff.passkeySignIn());
  equal([dismissed.name, calls.length], ['NotAllowedError', 1], 'dismissed');
});

test('addPasskey: enroll/begin, navigator.credentials.create with the decoded options, enroll with the attestation', async () => {
  const attestation = { toJSON: () => ({ id: 'new', response: { attestationObject: 'bzE' } }) };
  const { bff, calls, credentials } = setup([{ body: { options: creationJSON } }, { body: { Message: 'Passkey registered.' } }],
    { credential: attestation });
  equal(await bff.addPasskey(), { Message: 'Passkey registered.' }, 'Modgud\'s answer');
  equal(calls.map((c) => [c.url, c.init.body]), [['/bff/passkeys/enroll/begin', undefined],
    ['/bff/passkeys/enroll', JSON.stringify({ attestation: attestation.toJSON() })]], 'the calls');
  const { publicKey, kind } = credentials.requests[0];
  equal(kind, 'create', 'create');
  equal([bytes(publicKey.challenge), bytes(publicKey.user.id), bytes(publicKey.excludeCredentials[0].id)],
    [[4, 5, 6, 0, 255, 62, 63], [42, 0, 255, 251], [1, 1, 2, 3, 5, 8]], 'the decoded bytes');
  equal([publicKey.user.name, publicKey.rp.id, publicKey.pubKeyCredParams.length], ['ada@example.com', 'localhost', 2], 'the rest');
});

test('passkeyAutofill: a conditional get, null when another passkey request or cancelPasskey aborts it', async () => {
  const available = Object.getOwnPropertyDescriptor(PublicKeyCredential, 'isConditionalMediationAvailable');
  try {
    PublicKeyCredential.isConditionalMediationAvailable = async () => true;
    const { bff, calls, credentials } = setup([{ body: { options: requestJSON } }, { body: { options: requestJSON } }, { body: signedIn }],
      { credential: fakeAssertion });
    const autofill = bff.passkeyAutofill();
    while (credentials.requests.length === 0) await tick();
    equal(credentials.requests[0].mediation, 'conditional', 'mediation conditional');
    equal(await bff.passkeySignIn(), signedIn, 'the button\'s sign-in');
    equal(await autofill, null, 'the autofill request ended with null');
    check(credentials.requests[0].signal.aborted && !credentials.requests[1].signal.aborted, 'the autofill request aborted');
    equal(calls.map((c) => c.url), ['/bff/passkey/begin', '/bff/passkey/begin', '/bff/passkey/redeem'], 'the calls');

    const second = setup({ body: { options: requestJSON } });
    const pending = second.bff.passkeyAutofill();
    while (second.credentials.requests.length === 0) await tick();
    second.bff.cancelPasskey();
    equal([await pending, second.calls.length], [null, 1], 'cancelPasskey');

    PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    const none = setup({});
    equal([await none.bff.passkeyAutofill(), none.calls.length], [null, 0], 'no autofill in this browser: null, no call');
  } finally {
    if (available) Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', available);
    else delete PublicKeyCredential.isConditionalMediationAvailable;
  }
  const absent = await withPublicKeyCredential(undefined, () => setup({}).bff.passkeyAutofill());
  equal(absent, null, 'no WebAuthn: null');
});
