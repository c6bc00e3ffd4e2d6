import Core
import Crypto

/// The client data a browser or platform collects and the authenticator
/// signs the hash of (WebAuthn §5.8.1), as read from `clientDataJSON`.
///
/// Read with Core's strict JSON parser, so a document that repeats a key
/// (two `challenge`s, say) is refused rather than read one way here and
/// another way elsewhere. Members other than these four are ignored
/// (`topOrigin`, `tokenBinding`, and whatever a future client adds).
public struct CollectedClientData: Sendable, Hashable {
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge as sent: unpadded base64url.
    public let challenge: String
    /// The caller's origin, e.g. `https://app.example.com` or
    /// `android:apk-key-hash:…`.
    public let origin: String
    /// True when the ceremony ran in a cross-origin iframe.
    public let crossOrigin: Bool
    /// The bytes as received: their SHA-256 is what the authenticator signed.
    public let bytes: [UInt8]

    /// `webauthn.create`.
    public static let createType = "webauthn.create"
    /// `webauthn.get`.
    public static let getType = "webauthn.get"

    /// Bounds for client data: small and flat.
    static let limits = JSONLimits(maxDepth: 8, maxBytes: 16 << 10, maxStringBytes: 8 << 10)

    /// Parses `clientDataJSON`.
    ///
    /// - Throws: `WebAuthnError.malformedClientData` when it is not a JSON
    ///   object with string `type`, `challenge` and `origin` (and, when
    ///   present, a boolean `crossOrigin`).
    public init(bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let bytes = Array(bytes)
        let json: JSON
        do { json = try JSON.parse(bytes, limits: Self.limits) } catch { throw .malformedClientData(reason: error.description) }
        guard case .object = json else { throw .malformedClientData(reason: "not an object") }
        guard let type = json["type"]?.stringValue else { throw .malformedClientData(reason: "missing type") }
        guard let challenge = json["challenge"]?.stringValue else { throw .malformedClientData(reason: "missing challenge") }
        guard let origin = json["origin"]?.stringValue else { throw .malformedClientData(reason: "missing origin") }
        var crossOrigin = false
        if let value = json["crossOrigin"], !value.isNull {
            guard let flag = value.boolValue else { throw .malformedClientData(reason: "crossOrigin is not a boolean") }
            crossOrigin = flag
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.bytes = bytes
    }

    /// Client data serialized exactly as browsers do:
    /// `{"type":…,"challenge":…,"origin":…,"crossOrigin":false}`.
    public init(type: String, challenge: [UInt8], origin: String, crossOrigin: Bool = false) {
        let json: JSON = [
            "type": .string(type),
            "challenge": .string(Base64URL.encode(challenge)),
            "origin": .string(origin),
            "crossOrigin": .bool(crossOrigin),
        ]
        self.type = type
        self.challenge = Base64URL.encode(challenge)
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.bytes = json.serialized
    }

    /// The shortest challenge a relying party may expect (WebAuthn §13.4.3).
    public static let minimumChallengeLength = 16

    /// Checks the ceremony type, the challenge (decoded, then compared in
    /// constant time), the origin (byte-exact, against `allowedOrigins`)
    /// and that the ceremony was not cross-origin, in that order. An
    /// expected challenge shorter than ``minimumChallengeLength`` is the
    /// relying party's bug and never matches.
    func verify(type expectedType: String, challenge expected: [UInt8], allowedOrigins: [String]) throws(WebAuthnError) {
        guard Array(type.utf8) == Array(expectedType.utf8) else { throw .wrongCeremonyType }
        guard expected.count >= Self.minimumChallengeLength, let received = Base64URL.decode(challenge), constantTimeEquals(received, expected) else {
            throw .challengeMismatch
        }
        let originBytes = Array(origin.utf8)
        guard allowedOrigins.contains(where: { Array($0.utf8) == originBytes }) else { throw .originNotAllowed }
        guard !crossOrigin else { throw .crossOriginNotAllowed }
    }
}
