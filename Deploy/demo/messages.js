// What the demo says for each error the gateway answers (Docs/frontend.md, "The codes and what
// to show"), and for each ?error= a sign-in on the identity provider's pages lands with.

/** @type {Record<string, string>} */
const byCode = {
  unauthenticated: 'Please sign in.',
  session_expired: 'You have been signed out. Please sign in again.',
  insufficient_user_authentication: 'Confirm it is you: sign in again to change your passkeys.',
  mfa_required: 'Enter the code from your authenticator app.',
  invalid_grant: 'That code is wrong or has expired. Ask for a new one.',
  invalid_request: 'Something in the request was not accepted.',
  csrf_failed: 'This page is out of date. Reload the page and try again.',
  session_too_old: 'Sign in again to continue in the app.',
  app_request_invalid: 'Start again from the app.',
  access_denied: 'The sign-in was declined.',
  not_found: 'That session has already ended.',
  request_timeout: 'The connection is too slow. Try again.',
  expired_token: 'The code expired. Start again.',
  upstream_error: 'Sign-in is unavailable right now. Try again later.',
  upstream_timeout: 'Sign-in is unavailable right now. Try again later.',
  store_unavailable: 'Temporarily unavailable. Try again in a moment.',
  upstream_unavailable: 'Temporarily unavailable. Try again in a moment.',
  network_error: 'You seem to be offline. Check your connection and try again.'
};

/** @type {Record<string, string>} the codes of a failed sign-in on the identity provider's pages */
const byCallback = {
  access_denied: 'The sign-in was cancelled or declined.',
  login_required: 'Please sign in.',
  consent_required: 'The sign-in needs your consent. Try again.',
  interaction_required: 'The sign-in needs you on the identity provider\'s page. Try again.',
  invalid_state: 'That sign-in took too long or was started elsewhere. Start again.',
  invalid_response: 'The sign-in could not be verified. Start again.',
  invalid_request: 'The sign-in request was not accepted. Start again.',
  server_error: 'Sign-in is unavailable right now. Try again later.'
};

/**
 * The sentence to show for a failed call.
 * @param {any} error a BffError, a DOMException from WebAuthn, or anything else thrown
 * @returns {string}
 */
export function describe(error) {
  if (error?.name === 'NotAllowedError') return 'The passkey prompt was closed or timed out.';
  if (error?.name === 'InvalidStateError') return 'This passkey is already registered.';
  if (error?.name !== 'BffError') return 'Something went wrong. Reload the page and try again.';
  if (byCode[error.code]) {
    // invalid_request names the refused field in its description.
    return error.code === 'invalid_request' ? `${byCode.invalid_request} ${error.message}` : byCode[error.code];
  }
  if (error.status === 429) return 'Too many attempts.';
  if (/^(NativeGrants|Auth)\./.test(error.code)) {
    return `This way of signing in is not available. (${error.message})`;
  }
  // Modgud's plain sentences ("Firstname is required.") come as the error itself.
  if (error.status === 400 && /\s/.test(error.code)) return error.code;
  if (error.status === 400 && error.message && !error.message.startsWith('HTTP ')) return error.message;
  if (error.status >= 500) return 'Sign-in is unavailable right now. Try again later.';
  return 'Something went wrong. Try again.';
}

/**
 * The sentence for a `?error=` code, or null for none.
 * @param {string | null} code
 */
export function describeCallback(code) {
  if (!code) return null;
  return byCallback[code] ?? byCallback.server_error;
}
