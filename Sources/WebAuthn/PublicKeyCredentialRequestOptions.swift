import Core
import Crypto

/// The options for `navigator.credentials.get({publicKey})` (WebAuthn
/// §5.5), as JSON for `PublicKeyCredential.parseRequestOptionsFromJSON` or
/// a native passkey API.
///
/// With an empty ``allowCredentials`` (the default) the authenticator
/// offers the user's discoverable credentials for the RP ID: a passkey
/// sign-in with no user name typed first.
public struct PublicKeyCredentialRequestOptions: Sendable {
    /// The RP ID the credential must be scoped to.
    public var rpId: String
    /// The challenge: random, at least 16 bytes, used once.
    public var challenge: [UInt8]
    /// What the relying party asks of user verification.
    public var userVerification: UserVerificationRequirement
    /// Credential ids that may answer; empty for discoverable credentials.
    public var allowCredentials: [[UInt8]]
    /// How long the client may wait, in milliseconds.
    public var timeoutMilliseconds: Int

    /// Options for one sign-in ceremony.
    public init(rpId: String, challenge: [UInt8], userVerification: UserVerificationRequirement = .required,
                allowCredentials: [[UInt8]] = [], timeoutMilliseconds: Int = 300_000) {
        self.rpId = rpId
        self.challenge = challenge
        self.userVerification = userVerification
        self.allowCredentials = allowCredentials
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Options for `relyingParty`: its id and its UV requirement.
    public init(relyingParty: RelyingParty, challenge: [UInt8], allowCredentials: [[UInt8]] = [],
                timeoutMilliseconds: Int = 300_000) {
        self.init(rpId: relyingParty.id, challenge: challenge, userVerification: relyingParty.userVerification,
                  allowCredentials: allowCredentials, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The JSON form:
    /// `{"challenge","timeout","rpId","allowCredentials":[…],"userVerification"}`.
    public var json: JSON {
        [
            "challenge": .string(Base64URL.encode(challenge)),
            "timeout": .int(Int64(timeoutMilliseconds)),
            "rpId": .string(rpId),
            "allowCredentials": .array(allowCredentials.map(credentialDescriptor)),
            "userVerification": .string(userVerification.rawValue),
        ]
    }
}
