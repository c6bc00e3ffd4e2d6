import Core
import Crypto

/// The options for `navigator.credentials.create({publicKey})` (WebAuthn
/// §5.4), as the JSON a front end passes to
/// `PublicKeyCredential.parseCreationOptionsFromJSON` or a native passkey API.
///
/// Asks for a discoverable credential (`residentKey: "required"`), user
/// verification as the relying party wants it, ES256 then EdDSA, and no
/// attestation.
public struct PublicKeyCredentialCreationOptions: Sendable {
    /// The relying party: `rp.id`, `rp.name` and the UV requirement.
    public var relyingParty: RelyingParty
    /// The user handle: opaque, at most 64 bytes, no personal data.
    public var userId: [UInt8]
    /// The account name (`user.name`), e.g. an e-mail address.
    public var userName: String
    /// The name shown to people (`user.displayName`).
    public var userDisplayName: String
    /// The challenge: random, at least 16 bytes, used once.
    public var challenge: [UInt8]
    /// Ids of credentials the user already has, so the authenticator does
    /// not create a second one.
    public var excludeCredentials: [[UInt8]]
    /// How long the client may wait, in milliseconds.
    public var timeoutMilliseconds: Int

    /// The algorithms offered, in order of preference.
    public static let algorithms: [COSEAlgorithm] = [.es256, .edDSA]

    /// Options for one registration ceremony.
    public init(relyingParty: RelyingParty, userId: [UInt8], userName: String, userDisplayName: String,
                challenge: [UInt8], excludeCredentials: [[UInt8]] = [], timeoutMilliseconds: Int = 300_000) {
        self.relyingParty = relyingParty
        self.userId = userId
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.challenge = challenge
        self.excludeCredentials = excludeCredentials
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The JSON form, byte strings in unpadded base64url:
    ///
    /// ```
    /// {"rp":{"id","name"},"user":{"id","name","displayName"},"challenge",
    ///  "pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-8}],
    ///  "timeout","excludeCredentials":[{"type":"public-key","id"}…],
    ///  "authenticatorSelection":{"residentKey":"required","requireResidentKey":true,"userVerification"},
    ///  "attestation":"none"}
    /// ```
    public var json: JSON {
        let params = Self.algorithms.map { algorithm -> JSON in
            ["type": "public-key", "alg": .int(Int64(algorithm.rawValue))]
        }
        return [
            "rp": ["id": .string(relyingParty.id), "name": .string(relyingParty.name)],
            "user": [
                "id": .string(Base64URL.encode(userId)),
                "name": .string(userName),
                "displayName": .string(userDisplayName),
            ],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(params),
            "timeout": .int(Int64(timeoutMilliseconds)),
            "excludeCredentials": .array(excludeCredentials.map(credentialDescriptor)),
            "authenticatorSelection": [
                "residentKey": "required",
                "requireResidentKey": true,
                "userVerification": .string(relyingParty.userVerification.rawValue),
            ],
            "attestation": "none",
        ]
    }
}

/// `{"type":"public-key","id":"<base64url>"}`.
func credentialDescriptor(_ id: [UInt8]) -> JSON {
    ["type": "public-key", "id": .string(Base64URL.encode(id))]
}
