import COpenSSL

/// HKDF (RFC 5869) with HMAC-SHA256, extract-then-expand.
public enum HKDF {
    /// The longest output HKDF-SHA256 can produce: 255 × 32 bytes.
    public static let maximumSHA256OutputCount = 255 * 32

    /// The output of HKDF-Extract: the key every expansion starts from.
    /// A secret; it prints as `<redacted>`.
    public struct PseudorandomKey: Sendable, CustomStringConvertible {
        fileprivate let bytes: [UInt8]
        public var description: String { "<redacted>" }
    }

    /// Derives `outputCount` bytes from `inputKeyMaterial` with HMAC-SHA256.
    ///
    /// - Parameters:
    ///   - inputKeyMaterial: the secret (IKM); must not be empty.
    ///   - salt: optional non-secret salt; empty means "no salt" (RFC 5869
    ///     §2.2: a string of 32 zero bytes, which gives the same result).
    ///   - info: context and application-specific information; at most
    ///     1024 bytes.
    ///   - outputCount: 1…8160 bytes.
    /// - Throws: `CryptoError.invalidArgument` for an out-of-range count,
    ///   empty key material or over-long info.
    public static func sha256(
        inputKeyMaterial: some Collection<UInt8>,
        salt: some Collection<UInt8> = [UInt8](),
        info: some Collection<UInt8> = [UInt8](),
        outputCount: Int
    ) throws(CryptoError) -> [UInt8] {
        let key = try extractSHA256(inputKeyMaterial: inputKeyMaterial, salt: salt)
        return try expandSHA256(key, info: info, outputCount: outputCount)
    }

    /// HKDF-Extract: `HMAC(salt, IKM)`. Derive it once to expand several
    /// keys from the same material.
    public static func extractSHA256(
        inputKeyMaterial: some Collection<UInt8>, salt: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> PseudorandomKey {
        guard !inputKeyMaterial.isEmpty else {
            throw .invalidArgument(reason: "HKDF input key material is empty")
        }
        // An empty salt is HashLen zero bytes; HMAC pads a shorter key with
        // zeros anyway, so both give the same key.
        return PseudorandomKey(bytes: HMACSHA256.authenticate(key: salt, message: inputKeyMaterial))
    }

    /// HKDF-Expand: `T(i) = HMAC(PRK, T(i-1) | info | i)`, concatenated.
    public static func expandSHA256(
        _ key: PseudorandomKey, info: some Collection<UInt8> = [UInt8](), outputCount: Int
    ) throws(CryptoError) -> [UInt8] {
        guard outputCount > 0, outputCount <= maximumSHA256OutputCount else {
            throw .invalidArgument(reason: "HKDF-SHA256 output count must be 1...\(maximumSHA256OutputCount)")
        }
        guard info.count <= 1024 else {
            throw .invalidArgument(reason: "HKDF info longer than 1024 bytes")
        }
        var output: [UInt8] = []
        output.reserveCapacity(outputCount + HMACSHA256.byteCount)
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        info.withInputBytes { info in
            key.bytes.withUnsafeBytes { prk in
                while output.count < outputCount {
                    previous = previous.withUnsafeBytes { previous in
                        withUnsafeBytes(of: counter) { counter in
                            HMACSHA256.authenticate(keyBytes: prk, messageParts: [previous, info, counter])
                        }
                    }
                    output += previous
                    counter &+= 1
                }
            }
        }
        return Array(output.prefix(outputCount))
    }
}
