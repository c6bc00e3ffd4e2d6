import Core
import Crypto

/// A compact JWS (RFC 7515) taken apart and checked for form, not yet for
/// its signature: three base64url parts, an RS256 header with a `kid`, and
/// a payload that is a JSON object.
public struct JWS: Sendable {
    /// The default longest token accepted, in bytes.
    public static let defaultMaximumBytes = 16 << 10

    /// The header `kid`: the key that must verify the signature.
    public let keyID: String
    /// The header `typ`, when present, for the caller to check.
    public let type: String?
    /// The payload: a JSON object.
    public let payload: JSON
    /// The bytes the signature covers: `header.payload` as sent.
    public let signingInput: [UInt8]
    /// The decoded signature.
    public let signature: [UInt8]

    /// Parses `token`.
    ///
    /// - Throws: `.tooLarge` beyond `maximumBytes` (checked before any
    ///   decoding), `.unsupportedAlgorithm` unless the header `alg` is
    ///   exactly `RS256`, `.malformed` for anything else out of form.
    public init(parsing token: some StringProtocol, maximumBytes: Int = defaultMaximumBytes) throws(JWTError) {
        let utf8 = token.utf8
        guard utf8.count <= maximumBytes else { throw .tooLarge }
        let parts = utf8.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed }
        let limits = JSONLimits(maxDepth: 16, maxBytes: maximumBytes, maxStringBytes: maximumBytes)
        guard let headerBytes = Base64URL.decode(utf8: parts[0]),
              let header = try? JSON.parse(headerBytes, limits: limits), case .object(let fields) = header
        else { throw .malformed }
        guard let algorithm = fields["alg"] else { throw .malformed }
        guard algorithm.stringValue == "RS256" else { throw .unsupportedAlgorithm }
        // RFC 7515 §4.1.11: an extension the recipient must understand; none is.
        guard fields["crit"] == nil else { throw .malformed }
        guard let keyID = fields["kid"]?.stringValue, !keyID.isEmpty else { throw .malformed }
        var type: String?
        if let value = fields["typ"] {
            guard let text = value.stringValue else { throw .malformed }
            type = text
        }
        guard let payloadBytes = Base64URL.decode(utf8: parts[1]),
              let payload = try? JSON.parse(payloadBytes, limits: limits), case .object = payload,
              !parts[2].isEmpty, let signature = Base64URL.decode(utf8: parts[2])
        else { throw .malformed }
        self.keyID = keyID
        self.type = type
        self.payload = payload
        self.signingInput = Array(utf8[parts[0].startIndex..<parts[1].endIndex])
        self.signature = signature
    }

    /// Whether the signature verifies with `key` (RS256).
    public func isSigned(by key: RSAPublicKey) -> Bool {
        key.isValidRS256Signature(signature, for: signingInput)
    }
}

extension JWS: CustomStringConvertible {
    /// Never the token or its claims.
    public var description: String { "JWS(<redacted>)" }
}
