import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// The digest length in bytes.
    public static let byteCount = 32

    /// The algorithm, fetched once (OpenSSL 3 looks a name up on every
    /// call that passes `EVP_sha256()`). Immutable and shared by threads.
    nonisolated(unsafe) static let algorithm: OpaquePointer = {
        guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else {
            fatalError("EVP_MD_fetch(SHA256) failed: \(OpenSSLError.capture("EVP_MD_fetch"))")
        }
        return algorithm
    }()

    /// Returns the 32-byte SHA-256 digest of `data`.
    ///
    /// Never fails in practice: OpenSSL's one-shot digest fails only when it
    /// cannot allocate or its default provider is missing, and this traps
    /// then, as a Swift allocation failure would.
    @inlinable
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        data.withInputBytes { hash(bytes: $0) }
    }

    @usableFromInline
    static func hash(bytes input: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
            var size: UInt32 = 0
            let status = EVP_Digest(input.baseAddress, input.count, output.baseAddress, &size, algorithm, nil)
            guard status == 1, size == byteCount else {
                fatalError("EVP_Digest(SHA256) failed: \(OpenSSLError.capture("EVP_Digest"))")
            }
            initialized = byteCount
        }
    }
}
