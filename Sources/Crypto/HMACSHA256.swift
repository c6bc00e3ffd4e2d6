import COpenSSL

/// HMAC with SHA-256 (RFC 2104), through OpenSSL's EVP_MAC.
public enum HMACSHA256 {
    /// The tag length in bytes.
    public static let byteCount = 32

    /// Returns the 32-byte HMAC-SHA256 of `message` under `key`. Any key
    /// length is allowed (longer than 64 bytes is hashed first, per RFC 2104).
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

    @usableFromInline
    static func authenticate(keyBytes key: UnsafeRawBufferPointer, messageBytes message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
            var length = 0
            let result = EVP_Q_mac(
                nil, "HMAC", nil, CName.pointer(CName.sha256), nil,
                key.baseAddress, key.count, message.bytePointer, message.count,
                output.baseAddress, byteCount, &length)
            guard result != nil, length == byteCount else {
                fatalError("EVP_Q_mac(HMAC-SHA256) failed: \(OpenSSLError.capture("EVP_Q_mac"))")
            }
            initialized = byteCount
        }
    }
}
