import COpenSSL

/// HMAC with SHA-1 (RFC 2104), through OpenSSL's EVP_MAC. SHA-1 is broken
/// for collisions, not for HMAC: this exists for TOTP (RFC 6238's default
/// algorithm, which every authenticator app speaks), never for new designs.
public enum HMACSHA1 {
    /// The tag length in bytes.
    public static let byteCount = 20

    /// Returns the 20-byte HMAC-SHA1 of `message` under `key`. Any key length
    /// is allowed (longer than 64 bytes is hashed first, per RFC 2104).
    ///
    /// Compare tags with `constantTimeEquals`, never with `==`.
    ///
    /// Never fails in practice: `EVP_Q_mac` fails only when it cannot
    /// allocate or the default provider is missing, and this traps then.
    @inlinable
    public static func authenticate(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        key.withInputBytes { key in
            message.withInputBytes { message in authenticate(keyBytes: key, messageBytes: message) }
        }
    }

    /// OpenSSL's digest name; a static string because EVP_Q_mac keeps only
    /// the pointer for the length of the call.
    private static let digestName: StaticString = "SHA1"

    @usableFromInline
    static func authenticate(keyBytes key: UnsafeRawBufferPointer, messageBytes message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
            var length = 0
            let result = EVP_Q_mac(
                nil, "HMAC", nil, CName.pointer(digestName), nil,
                key.baseAddress, key.count, message.bytePointer, message.count,
                output.baseAddress, byteCount, &length)
            guard result != nil, length == byteCount else {
                fatalError("EVP_Q_mac(HMAC-SHA1) failed: \(OpenSSLError.capture("EVP_Q_mac"))")
            }
            initialized = byteCount
        }
    }
}
