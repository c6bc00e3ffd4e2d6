// What the bff.js unit tests share: the registry, checks, a fake fetch and navigator.credentials,
// and WebAuthn options as the gateway sends them. test.js runs the tests the other modules register.
import { createBff, toBase64url } from './bff.js';

export const tests = [];
export const test = (name, body) => tests.push([name, body]);

export function check(condition, what, detail) {
  if (!condition) throw new Error(what + (detail === undefined ? '' : ': ' + JSON.stringify(detail)));
}
export function equal(actual, expected, what) {
  check(JSON.stringify(actual) === JSON.stringify(expected), what, { actual, expected });
}
export const bytes = (data) => Array.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

export async function rejection(promise) {
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
export function fakeFetch(replies) {
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
export function fakeCredentials(credential) {
  const requests = [];
  const answer = (kind) => (options) => {
    requests.push({ kind, ...options });
    if (options.mediation !== 'conditional') return Promise.resolve(credential);
    return new Promise((resolve, reject) => options.signal.addEventListener('abort',
      () => reject(new DOMException('The operation was aborted.', 'AbortError'))));
  };
  return { requests, get: answer('get'), create: answer('create') };
}

export function setup(replies, options = {}) {
  const { fetch, calls } = fakeFetch(Array.isArray(replies) ? replies : [replies]);
  const navigated = [];
  const credentials = fakeCredentials(options.credential);
  const bff = createBff({ fetch, navigate: (url) => navigated.push(url), credentials, ...options });
  return { bff, calls, navigated, credentials };
}

// Runs body with window.PublicKeyCredential replaced (undefined: no WebAuthn at all).
export async function withPublicKeyCredential(value, body) {
  const saved = Object.getOwnPropertyDescriptor(window, 'PublicKeyCredential');
  Object.defineProperty(window, 'PublicKeyCredential', { value, configurable: true, writable: true });
  try {
    return await body();
  } finally {
    Object.defineProperty(window, 'PublicKeyCredential', saved);
  }
}

export const signedIn = { user: { sub: 'u-1', email: 'ada@example.com' }, session: { authenticatedAt: 'a', expiresAt: 'b' } };
export const b64 = (values) => toBase64url(new Uint8Array(values));
export const requestJSON = {
  challenge: b64([1, 2, 3, 250, 251, 252, 253, 254, 255]), rpId: 'localhost', timeout: 60000,
  userVerification: 'preferred', allowCredentials: [{ type: 'public-key', id: b64([9, 8, 7, 255]), transports: ['internal'] }],
};
export const creationJSON = {
  challenge: b64([4, 5, 6, 0, 255, 62, 63]), rp: { id: 'localhost', name: 'modgud-bff' },
  user: { id: b64([42, 0, 255, 251]), name: 'ada@example.com', displayName: 'Ada' },
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -257 }],
  timeout: 60000, attestation: 'none',
  authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  excludeCredentials: [{ type: 'public-key', id: b64([1, 1, 2, 3, 5, 8]) }],
};
