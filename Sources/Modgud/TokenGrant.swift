import Core

/// A `/connect/token` request body, one case per grant the gateway
/// redeems. Secrets stay `Secret` until the form is built.
public enum TokenGrant: Sendable {
    case otp(email: String, code: Secret, totpCode: Secret?)
    case magic(userID: String, token: Secret, totpCode: Secret?)
    case passkey(ceremonyID: Secret, assertion: String)
    /// The second step after `mfa_required`: the same grant type, the kept
    /// `mfa_token` and the factor, without the first factor's fields.
    case mfa(grantType: String, mfaToken: Secret, totpCode: Secret)
    case refresh(refreshToken: Secret)
    case clientCredentials
    /// The authorization code from the code flow's callback, with the PKCE
    /// verifier and the redirect URI the authorize request named. The
    /// audiences were asked for at the authorize request.
    case authorizationCode(code: Secret, verifier: Secret, redirectURI: String)
    /// The device code of a device authorization (RFC 8628 §3.4), polled
    /// until approved. The audiences were asked for when it was issued.
    case deviceCode(Secret)

    public static let otpType = "urn:cocoar:otp"
    public static let magicType = "urn:cocoar:magic"
    public static let passkeyType = "urn:cocoar:passkey"
    /// The code flow's grant type (`.authorizationCode`).
    public static let authorizationCodeType = "authorization_code"
    /// The device authorization grant's type (`.deviceCode`).
    public static let deviceCodeType = "urn:ietf:params:oauth:grant-type:device_code"

    /// The grant type this request uses.
    public var grantType: String {
        switch self {
        case .otp: Self.otpType
        case .magic: Self.magicType
        case .passkey: Self.passkeyType
        case .mfa(let grantType, _, _): grantType
        case .refresh: "refresh_token"
        case .clientCredentials: "client_credentials"
        case .authorizationCode: Self.authorizationCodeType
        case .deviceCode: Self.deviceCodeType
        }
    }

    /// Whether a sign-in with this grant asks for the configured audiences
    /// (`resource`): the magic-link grant does not, nor its second step.
    public var asksForAudiences: Bool {
        switch self {
        case .otp, .passkey, .authorizationCode, .deviceCode: true
        case .magic: false
        case .mfa(let grantType, _, _): grantType != Self.magicType
        case .refresh, .clientCredentials: false
        }
    }

    /// The form fields, in order: each grant's own as Modgud's guide lists
    /// them, `scope` where it takes one, and `resource` (RFC 8707, one field
    /// per audience) only where it takes one. The magic-link grant takes
    /// `user_id`, `magic_token`, `scope` and `totp_code` and nothing else.
    public func formFields(scope: String?, resources: [String]) -> [(String, String)] {
        let resource = resources.map { ("resource", $0) }
        var fields: [(String, String)] = [("grant_type", grantType)]
        switch self {
        case .otp(let email, let code, let totp):
            fields += [("username", email), ("otp_code", code.revealed)]
            if let scope { fields.append(("scope", scope)) }
            fields += resource
            if let totp { fields.append(("totp_code", totp.revealed)) }
        case .magic(let userID, let token, let totp):
            fields += [("user_id", userID), ("magic_token", token.revealed)]
            if let scope { fields.append(("scope", scope)) }
            if let totp { fields.append(("totp_code", totp.revealed)) }
        case .passkey(let ceremonyID, let assertion):
            fields += [("ceremony_id", ceremonyID.revealed), ("assertion", assertion)]
            if let scope { fields.append(("scope", scope)) }
            fields += resource
        case .mfa(_, let mfaToken, let totp):
            fields += [("mfa_token", mfaToken.revealed), ("totp_code", totp.revealed)]
        case .refresh(let refreshToken):
            fields.append(("refresh_token", refreshToken.revealed))
            fields += resource
        case .clientCredentials:
            if let scope { fields.append(("scope", scope)) }
            fields += resource
        case .authorizationCode(let code, let verifier, let redirectURI):
            fields += [("code", code.revealed), ("redirect_uri", redirectURI), ("code_verifier", verifier.revealed)]
        case .deviceCode(let code):
            fields.append(("device_code", code.revealed))
        }
        return fields
    }
}
