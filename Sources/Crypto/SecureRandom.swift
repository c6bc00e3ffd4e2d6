import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// - Throws: `CryptoError.invalidArgument` for a negative count or one
    ///   past `Int32.max`; `CryptoError.openSSL` if the DRBG cannot produce
    ///   output (it was never seeded).
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0 else { throw .invalidArgument(reason: "negative byte count") }
        var failure: CryptoError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(CryptoError) {
                try fill(UnsafeMutableRawBufferPointer(buffer))
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Returns a URL-safe random token: `byteCount` random bytes in
    /// unpadded base64url (RFC 4648 §5), e.g. 32 bytes → 43 characters.
    /// Suitable for session ids, `state`, `nonce` and PKCE verifiers.
    public static func token(byteCount: Int = 32) throws(CryptoError) -> String {
        Base64URL.encode(try bytes(count: byteCount))
    }

    /// Fills `buffer` with random bytes.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard let count = Int32(exactly: buffer.count) else {
            throw .invalidArgument(reason: "random byte count past Int32.max")
        }
        guard RAND_bytes(base.assumingMemoryBound(to: UInt8.self), count) == 1 else {
            throw OpenSSLError.capture("RAND_bytes")
        }
    }
}
