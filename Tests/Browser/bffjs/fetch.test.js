// bff.js's fetch: the CSRF header, JSON, every error, the 429 and the events.
import { BffError } from './bff.js';
import {
  test, check, equal, tick, rejection, setup, signedIn,
} from './support.js';

// ---- fetch: CSRF header, credentials, JSON

test('fetch adds X-CSRF: 1, leaves credentials at fetch\'s default (same-origin), keeps the caller\'s headers, parses the JSON answer', async () => {
  const { bff, calls } = setup({ body: { things: [1, 2] } });
  equal(await bff.fetch('/api/things', { headers: { Accept: 'application/json' } }), { things: [1, 2] }, 'the answer');
  equal(calls.length, 1, 'one call');
  equal(calls[0].url, '/api/things', 'the path as given');
  equal(calls[0].headers['x-csrf'], '1', 'X-CSRF: 1');
  equal(calls[0].headers.accept, 'application/json', 'the caller\'s header');
  equal(calls[0].init.credentials, undefined, 'credentials: fetch\'s default, same-origin (never include)');
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
