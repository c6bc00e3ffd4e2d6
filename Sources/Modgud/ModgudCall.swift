/// Which of Modgud's endpoints a call went to, as the `endpoint` label of
/// `bff_modgud_calls_total` names it. A fixed set: a grant at the token
/// endpoint is named by its grant, a call with the user's token by what it
/// does.
public enum ModgudCall: String, Sendable, CaseIterable {
    /// `GET /.well-known/openid-configuration` (start-up and readiness).
    case discovery
    /// `GET` of the JSON Web Key Set.
    case jwks
    /// `GET /api/app-info`.
    case appInfo = "app_info"
    /// `POST /api/account/native/otp/request`.
    case otpRequest = "otp_request"
    /// `POST /api/account/native/register`.
    case register
    /// `POST /api/account/magic-link/request`.
    case magicRequest = "magic_request"
    /// `POST /connect/passkey/begin`.
    case passkeyBegin = "passkey_begin"
    /// The token endpoint with the one-time-code grant.
    case otpRedeem = "otp_redeem"
    /// The token endpoint with the magic-link grant.
    case magicRedeem = "magic_redeem"
    /// The token endpoint with the passkey grant.
    case passkeyRedeem = "passkey_redeem"
    /// The token endpoint with a second factor after a first one.
    case mfa
    /// The token endpoint with an authorization code (the code flow).
    case codeRedeem = "code_redeem"
    /// The token endpoint with a refresh token.
    case refresh
    /// The token endpoint with the machine client's client_credentials grant.
    case clientCredentials = "client_credentials"
    /// The token endpoint with a device code (cross-device polls).
    case deviceToken = "device_token"
    /// The pushed authorization request endpoint.
    case par
    /// The device authorization endpoint (a cross-device sign-in's start).
    case deviceAuthorization = "device_authorization"
    /// `POST /connect/revoke`.
    case revoke
    /// The userinfo endpoint, with the user's token.
    case userinfo
    /// The user's passkeys, listed with the user's token.
    case passkeyList = "passkey_list"
    /// A passkey enrolment's start, with the user's token.
    case passkeyEnrollBegin = "passkey_enroll_begin"
    /// A passkey enrolment's finish, with the user's token.
    case passkeyEnroll = "passkey_enroll"
    /// A passkey's removal, with the user's token.
    case passkeyDelete = "passkey_delete"

    /// The call a `/connect/token` request with `grant` makes.
    public init(_ grant: TokenGrant) {
        switch grant {
        case .otp: self = .otpRedeem
        case .magic: self = .magicRedeem
        case .passkey: self = .passkeyRedeem
        case .mfa: self = .mfa
        case .refresh: self = .refresh
        case .clientCredentials: self = .clientCredentials
        case .authorizationCode: self = .codeRedeem
        case .deviceCode: self = .deviceToken
        }
    }
}
