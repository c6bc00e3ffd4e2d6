// Unit tests of Deploy/demo/bff.js in the browser, against a fake fetch (real Response objects).
// Results go to window.results ({ done, passed: [name], failed: [{ name, message }] }), which
// Tests/Browser/bffjs_test.py reads; the WebAuthn tests use the virtual authenticator it adds.
import {
  BffError, createBff, credentialJSON, creationOptions, fromBase64url, requestOptions, toBase64url,
} from './bff.js';

const results = { done: false, passed: [], failed: [] };
window.results = results;
const tests = [];
const test = (name, body) => tests.push([name, body]);

function check(condition, what, detail) {
  if (!condition) throw new Error(what + (detail === undefined ? '' : ': ' + JSON.stringify(detail)));
}
function equal(actual, expected, what) {
  check(JSON.stringify(actual) === JSON.stringify(expected), what, { actual, expected });
}
const bytes = (data) => Array.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got an answer');
}

// A fake fetch: answers with the replies in turn (the last one again when they run out; a
// function is called for its reply) and records every call, its headers read back through a
// Headers object as the browser would.
function fakeFetch(replies) {
  const calls = [];
  const fetch = async (url, init = {}) => {
    calls.push({ url, init, headers: Object.fromEntries(new Headers(init.headers)) });
    const next = replies.length > 1 ? replies.shift() : replies[0];
    const reply = typeof next === 'function' ? next() : next;
    if (reply instanceof Error) throw reply;
    const { status = 200, body = null, headers = {} } = reply ?? {};
    const text = body === null ? null : typeof body === 'string' ? body : JSON.stringify(body);
    const type = typeof body === 'string' ? 'text/html' : 'application/json';
    return new Response(text, { status, headers: { 'Content-Type': type, ...headers } });
  };
  return { fetch, calls };
}

// A fake navigator.credentials: answers get/create with the credentials given, records the
// requests; a conditional request waits until its signal aborts, as the browser's does.
function fakeCredentials(credential) {
  const requests = [];
  const answer = (kind) => (options) => {
    requests.push({ kind, ...options });
    if (options.mediation !== 'conditional') return Promise.resolve(credential);
    return new Promise((resolve, reject) => options.signal.addEventListener('abort',
      () => reject(new DOMException('The operation was aborted.', 'AbortError'))));
  };
  return { requests, get: answer('get'), create: answer('create') };
}

function setup(replies, options = {}) {
  const { fetch, calls } = fakeFetch(Array.isArray(replies) ? replies : [replies]);
  const navigated = [];
  const credentials = fakeCredentials(options.credential);
  const bff = createBff({ fetch, navigate: (url) => navigated.push(url), credentials, ...options });
  return { bff, calls, navigated, credentials };
}

// Runs body with window.PublicKeyCredential replaced (undefined: no WebAuthn at all).
async function withPublicKeyCredential(value, body) {
  const saved = Object.getOwnPropertyDescriptor(window, 'PublicKeyCredential');
  Object.defineProperty(window, 'PublicKeyCredential', { value, configurable: true, writable: true });
  try {
    return await body();
  } finally {
    Object.defineProperty(window, 'PublicKeyCredential', saved);
  }
}

const signedIn = { user: { sub: 'u-1', email: 'ada@example.com' }, session: { authenticatedAt: 'a', expiresAt: 'b' } };
const b64 = (values) => toBase64url(new Uint8Array(values));
const requestJSON = {
  challenge: b64([1, 2, 3, 250, 251, 252, 253, 254, 255]), rpId: 'localhost', timeout: 60000,
  userVerification: 'preferred', allowCredentials: [{ type: 'public-key', id: b64([9, 8, 7, 255]), transports: ['internal'] }],
};
const creationJSON = {
  challenge: b64([4, 5, 6, 0, 255, 62, 63]), rp: { id: 'localhost', name: 'modgud-bff' },
  user: { id: b64([42, 0, 255, 251]), name: 'ada@example.com', displayName: 'Ada' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -257 }],
  timeout: 60000, attestation: 'none',
  authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  excludeCredentials: [{ type: 'public-key', id: b64([1, 1, 2, 3, 5, 8]) }],
};

// ---- fetch: CSRF header, credentials, JSON

test('fetch adds X-CSRF: 1 and credentials same-origin, keeps the caller\'s headers, parses the JSON answer', async () => {
  const { bff, calls } = setup({ body: { things: [1, 2] } });
  equal(await bff.fetch('/api/things', { headers: { Accept: 'application/json' } }), { things: [1, 2] }, 'the answer');
  equal(calls.length, 1, 'one call');
  equal(calls[0].url, '/api/things', 'the path as given');
  equal(calls[0].headers['x-csrf'], '1', 'X-CSRF: 1');
  equal(calls[0].headers.accept, 'application/json', 'the caller\'s header');
  equal(calls[0].init.credentials, 'same-origin', 'credentials');
  equal(calls[0].init.method, undefined, 'a GET (fetch\'s default method)');
  equal(calls[0].init.body, undefined, 'no body');
});

test('fetch sends init.json as a JSON body: POST unless a method is given; a caller\'s X-CSRF is replaced', async () => {
  const { bff, calls } = setup({ body: { ok: true } });
  await bff.fetch('/api/things', { json: { name: 'mower', size: 2 }, headers: { 'X-CSRF': '0' } });
  equal(calls[0].init.method, 'POST', 'POST');
  equal(calls[0].headers['content-type'], 'application/json', 'Content-Type');
  equal(calls[0].init.body, '{"name":"mower","size":2}', 'the body');
  equal(calls[0].headers['x-csrf'], '1', 'X-CSRF: 1 however the caller set it');
  check(!('json' in calls[0].init), 'json is not passed on to fetch');
  await bff.fetch('/api/things/1', { method: 'PUT', json: [] });
  equal([calls[1].init.method, calls[1].init.body], ['PUT', '[]'], 'the given method, the JSON body');
});

test('a base prefixes every path', async () => {
  const { bff, calls, navigated } = setup({ body: signedIn }, { base: '/gw' });
  await bff.user();
  await bff.fetch('/api/x');
  bff.login({ returnUrl: '/' });
  equal([calls[0].url, calls[1].url, navigated[0]], ['/gw/bff/user', '/gw/api/x', '/gw/bff/login?returnUrl=%2F'], 'the URLs');
});

test('an empty answer is null; an answer that is not JSON is its text', async () => {
  const { bff } = setup([{ status: 204 }, { body: '<p>hello</p>' }]);
  equal(await bff.fetch('/bff/logout', { method: 'POST' }), null, '204');
  equal(await bff.fetch('/page'), '<p>hello</p>', 'text');
});

// ---- errors

const errorCases = [
  // status, body, headers, code, message
  [400, { error: 'invalid_request', error_description: 'The field email is malformed.' }, {}, 'invalid_request', 'The field email is malformed.'],
  [400, { error: 'invalid_grant', error_description: 'The code is invalid or expired.' }, {}, 'invalid_grant', 'The code is invalid or expired.'],
  [400, { error: 'mfa_required', mfaMethods: ['totp'], mfaBrowserMethods: ['totp'] }, {}, 'mfa_required', 'HTTP 400'],
  [400, { type: 'about:blank', title: 'NativeGrants.Disabled', status: 400, detail: 'Native sign-in is not enabled.' }, {}, 'NativeGrants.Disabled', 'Native sign-in is not enabled.'],
  [400, { Message: 'A first and last name are required.' }, {}, 'http_400', 'A first and last name are required.'],
  [401, { error: 'unauthenticated' }, {}, 'unauthenticated', 'HTTP 401'],
  [401, { error: 'session_expired', error_description: 'The session has ended.' }, {}, 'session_expired', 'The session has ended.'],
  [401, { error: 'insufficient_user_authentication', error_description: 'Sign in again.', max_age: 300 }, {}, 'insufficient_user_authentication', 'Sign in again.'],
  [403, { error: 'csrf_failed', error_description: 'Missing X-CSRF header.' }, {}, 'csrf_failed', 'Missing X-CSRF header.'],
  [403, { error: 'session_too_old' }, {}, 'session_too_old', 'HTTP 403'],
  [403, { error: 'app_request_invalid' }, {}, 'app_request_invalid', 'HTTP 403'],
  [403, { error: 'access_denied' }, {}, 'access_denied', 'HTTP 403'],
  [404, { error: 'not_found' }, {}, 'not_found', 'HTTP 404'],
  [408, { error: 'request_timeout' }, {}, 'request_timeout', 'HTTP 408'],
  [410, { error: 'expired_token' }, {}, 'expired_token', 'HTTP 410'],
  [429, { error: 'rate_limited', policy: 'otp-request', dimension: 'source', retryAfterSeconds: 30 }, { 'Retry-After': '30' }, 'rate_limited', 'HTTP 429'],
  [429, { error: 'too_many_requests' }, { 'Retry-After': '1' }, 'too_many_requests', 'HTTP 429'],
  [502, { error: 'upstream_error', error_description: 'The identity server failed.' }, {}, 'upstream_error', 'The identity server failed.'],
  [503, { error: 'store_unavailable' }, { 'Retry-After': '2' }, 'store_unavailable', 'HTTP 503'],
  [503, { error: 'upstream_unavailable' }, { 'Retry-After': '5' }, 'upstream_unavailable', 'HTTP 503'],
  [504, { error: 'upstream_timeout' }, {}, 'upstream_timeout', 'HTTP 504'],
  [502, '<html><body>Bad Gateway</body></html>', {}, 'http_502', 'HTTP 502'],
];

test('every error answer is a BffError with its status, code, message and body', async () => {
  for (const [status, body, headers, code, message] of errorCases) {
    const { bff } = setup({ status, body, headers });
    const error = await rejection(bff.fetch('/bff/x'));
    const what = `${status} ${code}`;
    check(error instanceof BffError && error instanceof Error, what + ': a BffError', String(error));
    equal([error.name, error.status, error.code, error.message], ['BffError', status, code, message], what);
    equal(error.body, body, what + ': the body');
    equal(error.retryAfter, headers['Retry-After'] === undefined ? undefined : +headers['Retry-After'], what + ': retryAfter');
  }
});

test('mfa_required carries the methods in its body', async () => {
  const { bff } = setup({ status: 400, body: { error: 'mfa_required', mfaMethods: ['totp'], mfaBrowserMethods: [] } });
  const error = await rejection(bff.redeemCode('ada@example.com', '123456'));
  equal([error.code, error.body.mfaMethods, error.body.mfaBrowserMethods], ['mfa_required', ['totp'], []], 'the prompt');
});

test('no answer is a BffError with status 0 and network_error; an abort stays an AbortError', async () => {
  const { bff } = setup(new TypeError('Failed to fetch'));
  const error = await rejection(bff.user());
  check(error instanceof BffError, 'a BffError', String(error));
  equal([error.status, error.code, error.message], [0, 'network_error', 'Failed to fetch'], 'the error');
  const aborted = setup(new DOMException('The user aborted a request.', 'AbortError'));
  const abort = await rejection(aborted.bff.fetch('/api/slow'));
  check(!(abort instanceof BffError) && abort.name === 'AbortError', 'the AbortError itself', String(abort));
});

// ---- 429

test('a 429 rejects at once with retryAfter from Retry-After and is never retried', async () => {
  const { bff, calls } = setup([
    { status: 429, body: { error: 'rate_limited', retryAfterSeconds: 42 }, headers: { 'Retry-After': '42' } },
    { body: { Message: 'sent' } },
  ]);
  const signals = [];
  bff.on('signedout', () => signals.push('signedout'));
  bff.on('stepup', () => signals.push('stepup'));
  const error = await rejection(bff.requestCode('ada@example.com'));
  equal([error.status, error.code, error.retryAfter], [429, 'rate_limited', 42], 'the error');
  await new Promise((resolve) => setTimeout(resolve, 100));
  equal(calls.length, 1, 'exactly one call, none after');
  equal(signals, [], 'no event');
});

test('Retry-After as an HTTP date, as 0, malformed, or absent', async () => {
  const date = new Date(Date.now() + 120_000).toUTCString();
  const cases = [[date, (s) => s >= 118 && s <= 120], ['0', (s) => s === 0],
    [new Date(Date.now() - 60_000).toUTCString(), (s) => s === 0], ['soon', (s) => s === undefined], [undefined, (s) => s === undefined]];
  for (const [value, expected] of cases) {
    const { bff } = setup({ status: 429, body: { error: 'rate_limited' }, headers: value === undefined ? {} : { 'Retry-After': value } });
    const error = await rejection(bff.fetch('/bff/otp/request', { json: {} }));
    check(expected(error.retryAfter), `Retry-After ${value}`, error.retryAfter);
  }
});

// ---- events

test('a 401 unauthenticated or session_expired emits signedout with the error', async () => {
  for (const code of ['unauthenticated', 'session_expired']) {
    const { bff } = setup({ status: 401, body: { error: code } });
    const seen = [];
    const stepUps = [];
    bff.on('signedout', (error) => seen.push(error));
    bff.on('stepup', (error) => stepUps.push(error));
    const error = await rejection(bff.fetch('/api/orders'));
    await tick();
    check(seen.length === 1 && seen[0] === error, code + ': one signedout event with the rejection\'s error', seen.length);
    equal(stepUps.length, 0, code + ': no stepup');
  }
});

test('a 401 insufficient_user_authentication emits stepup with maxAge (body or WWW-Authenticate)', async () => {
  const cases = [
    [{ error: 'insufficient_user_authentication', max_age: 0 }, {}, 0],
    [{ error: 'insufficient_user_authentication', max_age: 300 }, { 'WWW-Authenticate': 'Bearer max_age="600"' }, 300],
    [{ error: 'insufficient_user_authentication' },
      { 'WWW-Authenticate': 'Bearer error="insufficient_user_authentication", error_description="Sign in again", max_age="600"' }, 600],
    [{ error: 'insufficient_user_authentication' }, {}, undefined],
  ];
  for (const [body, headers, maxAge] of cases) {
    const { bff } = setup({ status: 401, body, headers });
    const seen = [];
    const signedOut = [];
    bff.on('stepup', (error) => seen.push(error));
    bff.on('signedout', (error) => signedOut.push(error));
    const error = await rejection(bff.removePasskey('p-1'));
    await tick();
    equal([seen.length, seen[0] === error, error.maxAge], [1, true, maxAge], 'stepup ' + JSON.stringify(body));
    equal(signedOut.length, 0, 'no signedout');
  }
});

test('other errors emit nothing; off removes a handler; a throwing handler stops neither the others nor the error', async () => {
  const { bff } = setup([{ status: 403, body: { error: 'csrf_failed' } }, { status: 401, body: { error: 'invalid_token' } },
    { status: 401, body: { error: 'unauthenticated' } }]);
  const seen = [];
  const handler = (error) => seen.push(['kept', error.code]);
  const removed = () => seen.push(['removed']);
  bff.on('signedout', () => { throw new Error('handler failure (expected by the test)'); });
  bff.on('signedout', handler);
  bff.on('signedout', removed);
  bff.off('signedout', removed);
  const reported = [];
  const onError = (event) => {
    if (String(event.error?.message).startsWith('handler failure')) { reported.push(event.error); event.preventDefault(); }
  };
  window.addEventListener('error', onError);
  try {
    equal((await rejection(bff.fetch('/api/a'))).code, 'csrf_failed', '403');
    equal((await rejection(bff.fetch('/api/b'))).code, 'invalid_token', '401 invalid_token');
    await tick();
    equal(seen, [], 'no event for them');
    const error = await rejection(bff.fetch('/api/c'));
    await tick();
    check(error instanceof BffError && error.code === 'unauthenticated', 'the rejection is the BffError', String(error));
    equal(seen, [['kept', 'unauthenticated']], 'the other handler ran, the removed one did not');
    equal(reported.length, 1, 'the throwing handler\'s error reported');
  } finally {
    window.removeEventListener('error', onError);
  }
});

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

// ---- WebAuthn JSON conversion

test('requestOptions and creationOptions: the browser\'s parse functions and the fallback agree', async () => {
  check(typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function'
    && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function', 'this chromium has the native parse functions');
  // The members the JSON names (the browser adds its defaults, such as hints: []), bytes as arrays.
  const binary = (value) => value instanceof ArrayBuffer || ArrayBuffer.isView(value);
  const project = (value, like) => (binary(value) ? bytes(value)
    : Array.isArray(like) ? like.map((item, i) => project(value?.[i], item))
      : like && typeof like === 'object' ? Object.fromEntries(Object.keys(like).sort().map((k) => [k, project(value?.[k], like[k])]))
        : value);
  const nativeRequest = requestOptions(requestJSON);
  const nativeCreation = creationOptions(creationJSON);
  check(nativeRequest.challenge instanceof ArrayBuffer, 'native: an ArrayBuffer challenge');
  for (const replacement of [undefined, class OlderPublicKeyCredential {}]) {
    const what = replacement ? 'without parse functions' : 'without PublicKeyCredential';
    const [request, creation] = await withPublicKeyCredential(replacement,
      () => [requestOptions(requestJSON), creationOptions(creationJSON)]);
    check(request.challenge instanceof Uint8Array, what + ': the fallback decoded the challenge');
    equal(project(request, requestJSON), project(nativeRequest, requestJSON), what + ': request options');
    equal(project(creation, creationJSON), project(nativeCreation, creationJSON), what + ': creation options');
    equal(project(request, requestJSON).challenge, bytes(fromBase64url(requestJSON.challenge)), what + ': the challenge\'s bytes');
  }
});

// A credential as a browser without toJSON hands it over.
const withoutToJSON = (c) => ({
  id: c.id, rawId: c.rawId, type: c.type, response: c.response, getClientExtensionResults: () => c.getClientExtensionResults(),
});

test('credentialJSON of a real credential: toJSON and the fallback agree (virtual authenticator)', async () => {
  const challenge = crypto.getRandomValues(new Uint8Array(32));
  const created = await navigator.credentials.create({ publicKey: creationOptions({
    ...creationJSON, challenge: toBase64url(challenge), excludeCredentials: [], user: { ...creationJSON.user, id: b64([7, 7, 7]) },
  }) });
  check(typeof created.toJSON === 'function', 'this chromium has toJSON');
  const attestation = credentialJSON(created);
  const fallback = credentialJSON(withoutToJSON(created));
  for (const key of ['id', 'rawId', 'type']) equal(fallback[key], attestation[key], 'attestation ' + key);
  for (const key of ['clientDataJSON', 'attestationObject', 'transports']) {
    equal(fallback.response[key], attestation.response[key], 'attestation response.' + key);
  }
  equal(fallback.clientExtensionResults, attestation.clientExtensionResults, 'attestation clientExtensionResults');
  equal(bytes(fromBase64url(fallback.rawId)), bytes(created.rawId), 'rawId round trip');
  const clientData = JSON.parse(new TextDecoder().decode(fromBase64url(fallback.response.clientDataJSON)));
  equal([clientData.type, clientData.challenge], ['webauthn.create', toBase64url(challenge)], 'clientDataJSON decodes');

  const got = await navigator.credentials.get({ publicKey: requestOptions({
    challenge: toBase64url(challenge), rpId: 'localhost', userVerification: 'preferred',
    allowCredentials: [{ type: 'public-key', id: attestation.id }],
  }) });
  const assertion = credentialJSON(got);
  const assertionFallback = credentialJSON(withoutToJSON(got));
  for (const key of ['id', 'rawId', 'type']) equal(assertionFallback[key], assertion[key], 'assertion ' + key);
  for (const key of ['clientDataJSON', 'authenticatorData', 'signature', 'userHandle']) {
    check(typeof assertion.response[key] === 'string', 'assertion response.' + key + ' present', assertion.response);
    equal(assertionFallback.response[key], assertion.response[key], 'assertion response.' + key);
  }
  equal(assertion.response.userHandle, b64([7, 7, 7]), 'the user handle');
});

test('the browser\'s own fetch and navigator.credentials by default: enrol, then sign in (virtual authenticator)', async () => {
  const [created, asked] = [0, 1].map(() => toBase64url(crypto.getRandomValues(new Uint8Array(32))));
  const { fetch: fake, calls } = fakeFetch([
    { body: { options: { ...creationJSON, challenge: created, excludeCredentials: [], user: { ...creationJSON.user, id: b64([3, 1, 4]) } } } },
    { body: { Message: 'Passkey registered.' } },
    // The passkey just enrolled (the authenticator holds another test's too).
    () => ({ body: { options: { challenge: asked, rpId: 'localhost', userVerification: 'preferred',
      allowCredentials: [{ type: 'public-key', id: JSON.parse(calls[1].init.body).attestation.id }] } } }),
    { body: signedIn },
  ]);
  const saved = window.fetch;
  window.fetch = fake;
  try {
    const bff = createBff({ navigate: () => {} });
    equal(await bff.addPasskey(), { Message: 'Passkey registered.' }, 'enrolled');
    equal(await bff.passkeySignIn(), signedIn, 'signed in');
  } finally {
    window.fetch = saved;
  }
  const { attestation } = JSON.parse(calls[1].init.body);
  const { assertion } = JSON.parse(calls[3].init.body);
  equal([calls.length, typeof attestation.response.attestationObject, attestation.type], [4, 'string', 'public-key'], 'the attestation sent');
  equal([assertion.id, assertion.response.userHandle], [attestation.id, b64([3, 1, 4])], 'the assertion of that passkey sent');
  const clientData = (credential) => JSON.parse(new TextDecoder().decode(fromBase64url(credential.response.clientDataJSON)));
  equal([clientData(attestation).type, clientData(attestation).challenge], ['webauthn.create', created], 'the attestation answers its challenge');
  equal([clientData(assertion).type, clientData(assertion).challenge], ['webauthn.get', asked], 'the assertion answers its challenge');
});

// ---- base64url

test('base64url: known values, every byte, round trips, views, padding and bad input', async () => {
  const text = (s) => new TextEncoder().encode(s);
  equal([toBase64url(text('')), toBase64url(text('f')), toBase64url(text('fo')), toBase64url(text('foo')), toBase64url(text('foob'))],
    ['', 'Zg', 'Zm8', 'Zm9v', 'Zm9vYg'], 'RFC 4648 values');
  equal(toBase64url(new Uint8Array([0xfb, 0xff, 0xbf])), '-_-_', 'the URL alphabet');
  const every = Uint8Array.from({ length: 256 }, (_, i) => i);
  equal(bytes(fromBase64url(toBase64url(every))), bytes(every), 'every byte value');
  equal(bytes(fromBase64url(toBase64url(every.buffer))), bytes(every), 'an ArrayBuffer');
  for (let length = 0; length <= 70; length++) {
    const data = crypto.getRandomValues(new Uint8Array(length));
    const encoded = toBase64url(data);
    check(/^[A-Za-z0-9_-]*$/.test(encoded), 'no padding, URL alphabet', encoded);
    equal(bytes(fromBase64url(encoded)), bytes(data), 'round trip of ' + length + ' bytes');
  }
  const view = new Uint8Array([1, 2, 3, 4, 5, 6]).subarray(2, 5);
  equal(toBase64url(view), toBase64url(new Uint8Array([3, 4, 5])), 'a view: only its bytes');
  equal(toBase64url(new DataView(view.buffer, 1, 2)), toBase64url(new Uint8Array([2, 3])), 'a DataView');
  equal(bytes(fromBase64url('Zm8=')), bytes(text('fo')), 'padded input');
  for (const bad of ['Zm9v*', 'Z', 'Zm9vY', 'a b\u00e9']) {
    const error = await rejection((async () => fromBase64url(bad))());
    equal(error.name, 'InvalidCharacterError', 'refused: ' + JSON.stringify(bad));
  }
});

// ---- run

const log = document.getElementById('log');
for (const [name, body] of tests) {
  try {
    await body();
    results.passed.push(name);
    log.textContent += 'PASS ' + name + '\n';
  } catch (error) {
    results.failed.push({ name, message: String(error?.stack ?? error) });
    log.textContent += 'FAIL ' + name + ': ' + error + '\n';
  }
}
results.done = true;
