// Types of bff.js (Docs/frontend.md): the browser's side of the modgud-bff gateway.

/** An answer of the gateway other than 2xx, or a request that got no answer (`status` 0, `code` "network_error"). */
export class BffError extends Error {
  constructor(status: number, body: unknown, headers?: Headers);
  readonly name: 'BffError';
  /** The HTTP status; 0 when no answer came. */
  status: number;
  /** The answer's `error` field (or a problem's `title`); `http_<status>` when it names none. */
  code: string;
  /** The answer's parsed JSON (its text when it is not JSON; null when empty). */
  body: any;
  /** Whole seconds before trying again, from `Retry-After` (a 429, a 503). */
  retryAfter?: number;
  /** A step-up's `max_age`: the most seconds the sign-in may be old. */
  maxAge?: number;
}

/** Bytes as base64url without padding (WebAuthn's JSON encoding). */
export function toBase64url(data: ArrayBuffer | ArrayBufferView): string;
/** base64url (padded or not; standard base64 too) as bytes; throws a DOMException (InvalidCharacterError) on anything else. */
export function fromBase64url(text: string): Uint8Array;
/** WebAuthn options as JSON, bytes in base64url (PublicKeyCredential{Request,Creation}OptionsJSON). */
export interface WebAuthnOptionsJSON {
  challenge: string;
  [member: string]: any;
}
/** Passkey sign-in options (JSON) for navigator.credentials.get. */
export function requestOptions(json: WebAuthnOptionsJSON): PublicKeyCredentialRequestOptions;
/** Passkey enrolment options (JSON) for navigator.credentials.create. */
export function creationOptions(json: WebAuthnOptionsJSON): PublicKeyCredentialCreationOptions;
/** A credential from navigator.credentials.get or create as JSON (PublicKeyCredentialJSON), bytes in base64url. */
export function credentialJSON(credential: Credential): Record<string, any>;

/** The session's user and times (`GET /bff/user`, every sign-in's answer). */
export interface SignedIn {
  user: { sub: string; email?: string; name?: string; [claim: string]: unknown };
  session: { authenticatedAt: string; expiresAt: string };
}

/** One of the user's sessions (`GET /bff/sessions`). */
export interface SessionCard {
  id: string;
  current: boolean;
  createdAt: string;
  lastSeenAt: string;
  method: 'otp' | 'magic' | 'passkey' | 'code' | 'app' | 'cross-device' | null;
  device: string;
  address: string;
}

/** One of the user's passkeys, as Modgud lists them (`GET /bff/passkeys`). */
export interface Passkey {
  Id: string;
  DisplayName?: string;
  CreatedAt?: string;
  LastUsedAt?: string;
  [field: string]: unknown;
}

/** What this gateway offers (`GET /bff/capabilities`). */
export interface Capabilities {
  signIn: {
    emailCode?: boolean;
    magicLink?: boolean;
    passkey?: boolean;
    register?: boolean;
    codeFlow?: boolean;
    selfRegistration?: string;
  };
  features: Record<string, boolean>;
}

/** Modgud's uniform answer to a request for a code or link. */
export interface ModgudMessage {
  Message?: string;
  [field: string]: unknown;
}

/** Parameters of `/bff/login` (a sign-in on Modgud's own pages). */
export interface LoginOptions {
  /** Where to land afterwards: a same-origin path (default: this page's path and query). */
  returnUrl?: string;
  prompt?: 'login' | 'none' | 'consent' | 'select_account';
  maxAge?: number;
  loginHint?: string;
  /** 'mfa': continue a sign-in waiting for its second factor on Modgud's pages. */
  continue?: 'mfa';
}

export interface BffOptions {
  /** Prefix of every path ('' when the front end is on the gateway's origin). */
  base?: string;
  /** The fetch to call (default: the browser's). */
  fetch?: typeof fetch;
  /** WebAuthn's container (default: navigator.credentials). */
  credentials?: CredentialsContainer;
  /** How to send the browser elsewhere (default: location.assign). */
  navigate?: (url: string) => void;
}

export type BffEvent = 'signedout' | 'stepup';

export interface Bff {
  /** fetch with `X-CSRF: 1`, fetch's default credentials mode (`same-origin`), `init.json` as a JSON body (POST unless a method is given); resolves with the parsed answer (null when empty), rejects with a BffError. */
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<any>;
  /** `signedout`: a 401 `unauthenticated` or `session_expired`; `stepup`: a 401 `insufficient_user_authentication` (see `maxAge`). */
  on(event: BffEvent, handler: (error: BffError) => void): void;
  off(event: BffEvent, handler: (error: BffError) => void): void;

  capabilities(): Promise<Capabilities>;
  appInfo(): Promise<Record<string, unknown>>;
  /** E-mails a one-time code. */
  requestCode(email: string, more?: { firstName?: string; lastName?: string; inviteCode?: string }): Promise<ModgudMessage>;
  /** Explicit registration (`capabilities.signIn.register`). */
  register(email: string, more?: { firstName?: string; lastName?: string }): Promise<ModgudMessage>;
  redeemCode(email: string, code: string, totpCode?: string): Promise<SignedIn>;
  requestMagicLink(email: string): Promise<ModgudMessage>;
  /** Redeems the magic link's `userId` and `token` (default: from this page's URL). */
  redeemMagicLink(link?: string, totpCode?: string): Promise<SignedIn>;
  /** A passkey sign-in; aborts a passkey request under way. */
  passkeySignIn(options?: { mediation?: CredentialMediationRequirement }): Promise<SignedIn>;
  /** A passkey sign-in offered in the autofill of an input with `autocomplete="username webauthn"`; null when the browser has none or the request was aborted. */
  passkeyAutofill(): Promise<SignedIn | null>;
  /** Aborts the passkey request under way (an autofill one, say). */
  cancelPasskey(): void;
  /** The second factor after `mfa_required`. */
  mfa(totpCode: string): Promise<SignedIn>;
  /** The `/bff/login` URL for these options. */
  loginUrl(options?: LoginOptions): string;
  /** Sends the browser to `/bff/login`. */
  login(options?: LoginOptions): void;
  /** Sends the browser to sign in again (`prompt=login&maxAge=0`) after a `stepup`. */
  stepUp(returnUrl?: string): void;

  /** The signed-in user, or null without a session. */
  user(): Promise<SignedIn | null>;
  sessions(): Promise<SessionCard[]>;
  /** Ends one of the user's sessions (this one too, if named). */
  endSession(id: string): Promise<null>;
  /** Signs out (`everywhere`: every session of the user); follows an `endSessionUrl` unless `endSession` is false. */
  logout(options?: { everywhere?: boolean; endSession?: boolean }): Promise<{ endSessionUrl: string } | null>;

  passkeys(): Promise<Passkey[]>;
  /** Enrols a passkey with navigator.credentials.create. */
  addPasskey(): Promise<ModgudMessage>;
  removePasskey(id: string): Promise<null>;
}

/** The gateway's API for one front end. */
export function createBff(options?: BffOptions): Bff;
