/// Unpadded base64url (RFC 4648 §5), as used by JWS/JWT, WebAuthn, PKCE
/// and random tokens.
public enum Base64URL {
    /// Encodes `bytes` with the `-` `_` alphabet and no padding.
    @inlinable
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        bytes.withInputBytes { Base64Codec.encode($0, alphabet: .url) }
    }

    /// Decodes unpadded base64url, or returns nil for anything else:
    /// characters outside the alphabet, `=` padding, whitespace, an
    /// impossible length, non-zero trailing bits.
    @inlinable
    public static func decode(_ string: some StringProtocol) -> [UInt8]? {
        decode(utf8: string.utf8)
    }

    /// Decodes unpadded base64url given as ASCII bytes; see `decode(_:)`.
    @inlinable
    public static func decode(utf8 bytes: some Collection<UInt8>) -> [UInt8]? {
        bytes.withInputBytes { Base64Codec.decode($0, alphabet: .url) }
    }
}
