/// An HMAC-SHA256 key derived from other key material, for tagging
/// messages and checking their tags. Prints as `<redacted>`.
public struct MACKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The tag length in bytes.
    public static let tagByteCount = HMACSHA256.byteCount

    private let bytes: [UInt8]

    /// HKDF-SHA256 (RFC 5869) of `material` with no salt and `info`, 32
    /// bytes. `material` is a secret key of at least 32 bytes.
    ///
    /// - Throws: what `HKDF.sha256` throws for empty material or over-long info.
    public init(derivedFrom material: some Collection<UInt8>, info: some Collection<UInt8>) throws(CryptoError) {
        bytes = try HKDF.sha256(inputKeyMaterial: material, info: info, outputCount: HMACSHA256.byteCount)
    }

    /// The tag of `message`.
    public func tag(_ message: some Collection<UInt8>) -> [UInt8] {
        HMACSHA256.authenticate(key: bytes, message: message)
    }

    /// Whether `tag` is `message`'s, compared in constant time.
    public func verifies(_ tag: some Collection<UInt8>, of message: some Collection<UInt8>) -> Bool {
        constantTimeEquals(self.tag(message), tag)
    }

    public var description: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
