/**
 * bff.js: a web front end's side of the modgud-bff gateway (Docs/frontend.md,
 * Docs/openapi.yaml). One ES module without dependencies: copy it or import it.
 * Types for TypeScript are in bff.d.ts beside it.
 * @module bff
 */

/**
 * An answer of the gateway other than 2xx, or a request that got no answer
 * (`status` 0, `code` "network_error").
 */
export class BffError extends Error {
  /**
   * @param {number} status the HTTP status (0: no answer)
   * @param {any} body the answer's parsed JSON (or its text, or null)
   * @param {Headers} [headers] the answer's headers
   */
  constructor(status, body, headers) {
    const o = Object(body);
    super(o.error_description || o.detail || o.Message || 'HTTP ' + status);
    this.name = 'BffError';
    /** @type {number} */
    this.status = status;
    /** The `error` field (or a problem's `title`); `http_<status>` when the answer names none. */
    this.code = o.error || o.title || 'http_' + status;
    /** @type {any} */
    this.body = body;
    /** @type {number | undefined} whole seconds before trying again (`Retry-After`) */
    this.retryAfter = seconds(headers?.get('Retry-After'));
    const age = o.max_age ?? headers?.get('WWW-Authenticate')?.match(/max_age="?(\d+)/)?.[1];
    /** @type {number | undefined} the most seconds a sign-in may be old (a step-up's `max_age`) */
    this.maxAge = age == null ? undefined : +age;
  }
}

/** @param {any} value a Retry-After value (seconds, or an HTTP date), null or undefined */
function seconds(value) {
  const n = /^\d+$/.test(value) ? +value : Math.ceil((Date.parse(value) - Date.now()) / 1e3);
  return isNaN(n) ? undefined : Math.max(0, n);
}

/**
 * Bytes as base64url without padding (WebAuthn's JSON encoding).
 * @param {any} data an ArrayBuffer or an ArrayBufferView
 * @returns {string}
 */
export function toBase64url(data) {
  const bytes = new Uint8Array(data.buffer ?? data, data.byteOffset, data.byteLength);
  return btoa(String.fromCharCode(...bytes)).replace(/=/g, '').replace(/[+/]/g, c => c == '+' ? '-' : '_');
}

/**
 * base64url (padded or not; standard base64 too) as bytes; throws a DOMException
 * (InvalidCharacterError) on anything else.
 * @param {string} text
 * @returns {Uint8Array}
 */
export function fromBase64url(text) {
  return Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), c => c.charCodeAt(0));
}

/** @returns {any} */
const native = () => globalThis.PublicKeyCredential;
/** @param {any} c */
const withId = c => ({ ...c, id: fromBase64url(c.id) });
/**
 * The browser's PublicKeyCredential.parseRequestOptionsFromJSON or parseCreationOptionsFromJSON
 * where present; otherwise the challenge and the `ids` decoded here.
 * @param {any} o @param {'Request' | 'Creation'} kind @param {object} ids
 */
const decode = (o, kind, ids) =>
  native()?.['parse' + kind + 'OptionsFromJSON']?.(o) ?? { ...o, challenge: fromBase64url(o.challenge), ...ids };

/**
 * The gateway's passkey sign-in options (JSON) for navigator.credentials.get.
 * @param {any} o PublicKeyCredentialRequestOptionsJSON
 * @returns {PublicKeyCredentialRequestOptions}
 */
export const requestOptions = o =>
  decode(o, 'Request', { allowCredentials: o.allowCredentials?.map(withId) });

/**
 * The gateway's passkey enrolment options (JSON) for navigator.credentials.create.
 * @param {any} o PublicKeyCredentialCreationOptionsJSON
 * @returns {PublicKeyCredentialCreationOptions}
 */
export const creationOptions = o => decode(o, 'Creation',
  { user: withId(o.user), excludeCredentials: o.excludeCredentials?.map(withId) });

/**
 * A credential from navigator.credentials.get or create as JSON, for the gateway.
 * @param {any} c a PublicKeyCredential
 * @returns {Record<string, any>}
 */
export function credentialJSON(c) {
  if (c.toJSON) return c.toJSON();
  const { id, rawId, type, response: r } = c;
  /** @type {Record<string, any>} */
  const response = {};
  for (const k of ['clientDataJSON', 'authenticatorData', 'signature', 'userHandle', 'attestationObject']) {
    if (r[k]) response[k] = toBase64url(r[k]);
  }
  if (r.getTransports) response.transports = r.getTransports();
  return {
    id, rawId: toBase64url(rawId), type, response,
    clientExtensionResults: c.getClientExtensionResults?.() ?? {}
  };
}

/** @type {Record<string, string>} the 401 codes that emit an event */
const events = {
  insufficient_user_authentication: 'stepup', unauthenticated: 'signedout', session_expired: 'signedout'
};

/**
 * The gateway's API for one front end (Docs/frontend.md). Options, all optional: `base`, the
 * prefix of every path ('' on the gateway's origin); `fetch`, the fetch to call; `credentials`,
 * WebAuthn's navigator.credentials; `navigate`, how to send the browser elsewhere.
 * @param {{ base?: string, fetch?: typeof fetch, credentials?: CredentialsContainer,
 *   navigate?: (url: string) => void }} options
 */
export function createBff({
  base = '', fetch: send = fetch, credentials = navigator.credentials,
  navigate = url => location.assign(url)
} = {}) {
  /** @type {Record<string, Set<(error: BffError) => void>>} */
  const handlers = {};
  /** @type {AbortController | undefined} the passkey request under way */
  let pending;

  /**
   * @param {string} path
   * @param {RequestInit & { json?: any }} init
   * @returns {Promise<any>}
   */
  async function call(path, { json, ...init } = {}) {
    const headers = new Headers(init.headers);
    headers.set('X-CSRF', '1');
    if (json !== undefined) {
      headers.set('Content-Type', 'application/json');
      init.body = JSON.stringify(json);
      init.method ??= 'POST';
    }
    // fetch's default credentials mode, same-origin, sends the session cookie.
    const r = await send(base + path, { ...init, headers }).catch(e => {
      throw e?.name == 'AbortError' ? e : new BffError(0, { error: 'network_error', error_description: e?.message });
    });
    /** @type {any} the parsed JSON, or the text when it is not JSON */
    let body = await r.text();
    try { body = body ? JSON.parse(body) : null; } catch {}
    if (r.ok) return body;
    const error = new BffError(r.status, body, r.headers);
    // Each handler runs on its own, so that one that throws neither stops the others nor hides this error.
    handlers[r.status == 401 ? events[error.code] : '']?.forEach(f => queueMicrotask(() => f(error)));
    throw error;
  }

  // Paths under /bff/.
  /** @param {string} p */
  const get = p => call('/bff/' + p);
  /** @param {string} p @param {any} [json] */
  const post = (p, json) => call('/bff/' + p, { method: 'POST', json });
  /** @param {string} p @param {string} id */
  const remove = (p, id) => call('/bff/' + p + encodeURIComponent(id), { method: 'DELETE' });

  // A passkey request aborts the one under way (the browser takes one at a time).
  /** @param {{ mediation?: any }} o CredentialMediationRequirement, 'conditional' included */
  async function passkeySignIn({ mediation } = {}) {
    pending?.abort();
    const { signal } = (pending = new AbortController());
    const { options } = await post('passkey/begin');
    const c = await credentials.get({ publicKey: requestOptions(options), mediation, signal });
    return post('passkey/redeem', { assertion: credentialJSON(c) });
  }

  /** @param {{ returnUrl?: string, prompt?: string, maxAge?: number, loginHint?: string, continue?: string }} o */
  const loginUrl = ({ returnUrl = location.pathname + location.search, ...o } = {}) => base + '/bff/login?'
    + new URLSearchParams(/** @type {any} */ (Object.entries({ returnUrl, ...o }).filter(e => e[1] != null)));

  return {
    fetch: call,
    /** @param {'signedout' | 'stepup'} type @param {(error: BffError) => void} f */
    on: (type, f) => (handlers[type] ??= new Set()).add(f),
    /** @param {'signedout' | 'stepup'} type @param {(error: BffError) => void} f */
    off: (type, f) => handlers[type]?.delete(f),

    capabilities: () => get('capabilities'),
    appInfo: () => get('app-info'),
    /** @param {string} email @param {object} [more] firstName, lastName, inviteCode */
    requestCode: (email, more) => post('otp/request', { email, ...more }),
    /** @param {string} email @param {object} [more] firstName, lastName */
    register: (email, more) => post('register', { email, ...more }),
    /** @param {string} email @param {string} code @param {string} [totpCode] */
    redeemCode: (email, code, totpCode) => post('otp/redeem', { email, code, totpCode }),
    /** @param {string} email */
    requestMagicLink: email => post('magic/request', { email }),
    /** @param {string} [link] the magic link (the landing page's URL) @param {string} [totpCode] */
    redeemMagicLink(link = location.href, totpCode) {
      const q = new URL(link, location.href).searchParams;
      return post('magic/redeem', { userId: q.get('userId'), token: q.get('token'), totpCode });
    },
    passkeySignIn,
    async passkeyAutofill() {
      if (!(await native()?.isConditionalMediationAvailable?.())) return null;
      return passkeySignIn({ mediation: 'conditional' }).catch(e => e.name == 'AbortError' ? null : Promise.reject(e));
    },
    cancelPasskey: () => pending?.abort(),
    /** @param {string} totpCode */
    mfa: totpCode => post('mfa', { totpCode }),
    loginUrl,
    /** @param {Parameters<typeof loginUrl>[0]} [o] */
    login: o => navigate(loginUrl(o)),
    /** @param {string} [returnUrl] */
    stepUp: returnUrl => navigate(loginUrl({ returnUrl, prompt: 'login', maxAge: 0 })),

    user: () => get('user').catch(e => e.status == 401 ? null : Promise.reject(e)),
    sessions: () => get('sessions').then(a => a.sessions),
    /** @param {string} id */
    endSession: id => remove('sessions/', id),
    /** @param {{ everywhere?: boolean, endSession?: boolean }} o */
    async logout({ everywhere = false, endSession = true } = {}) {
      const a = await post('logout', everywhere ? { everywhere } : undefined);
      if (a?.endSessionUrl && endSession) navigate(a.endSessionUrl);
      return a;
    },

    passkeys: () => get('passkeys'),
    async addPasskey() {
      pending?.abort();
      const { options } = await post('passkeys/enroll/begin');
      const c = await credentials.create({ publicKey: creationOptions(options) });
      return post('passkeys/enroll', { attestation: credentialJSON(c) });
    },
    /** @param {string} id */
    removePasskey: id => remove('passkeys/', id)
  };
}
