/// Standard base64 (RFC 4648 §4) with `=` padding, as used by HTTP Basic
/// authentication (RFC 7617) and, once line breaks are removed, PEM.
public enum Base64 {
    /// Encodes `bytes` with the `+` `/` alphabet and `=` padding.
    @inlinable
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        bytes.withInputBytes { Base64Codec.encode($0, alphabet: .standard) }
    }

    /// Decodes padded standard base64, or returns nil for anything else:
    /// characters outside the alphabet (whitespace included), missing or
    /// misplaced padding, non-zero trailing bits.
    @inlinable
    public static func decode(_ string: some StringProtocol) -> [UInt8]? {
        decode(utf8: string.utf8)
    }

    /// Decodes padded standard base64 given as ASCII bytes; see `decode(_:)`.
    @inlinable
    public static func decode(utf8 bytes: some Collection<UInt8>) -> [UInt8]? {
        bytes.withInputBytes { Base64Codec.decode($0, alphabet: .standard) }
    }
}
