/// How a session's user signed in, as `GET /bff/sessions` names it.
public enum SignInMethod: String, Sendable, Hashable, CaseIterable {
    /// An e-mailed one-time code (`urn:cocoar:otp`).
    case otp
    /// A magic link (`urn:cocoar:magic`).
    case magic
    /// A passkey (`urn:cocoar:passkey`).
    case passkey
    /// The authorization-code flow through Modgud's own pages (`/bff/login`).
    case code
    /// A native app's take-over of a browser sign-in.
    case app
    /// A sign-in approved on another device with a match code.
    case crossDevice = "cross-device"
}
