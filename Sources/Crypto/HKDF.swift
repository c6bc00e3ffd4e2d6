import COpenSSL

/// HKDF (RFC 5869), extract-then-expand, through OpenSSL's EVP_KDF.
public enum HKDF {
    /// The longest output HKDF-SHA256 can produce: 255 × 32 bytes.
    public static let maximumSHA256OutputCount = 255 * 32

    /// Derives `outputCount` bytes from `inputKeyMaterial` with HMAC-SHA256.
    ///
    /// - Parameters:
    ///   - inputKeyMaterial: the secret (IKM); must not be empty.
    ///   - salt: optional non-secret salt; empty means "no salt" (RFC 5869
    ///     §2.2: a string of 32 zero bytes, which gives the same result).
    ///   - info: context and application-specific information; at most
    ///     1024 bytes (OpenSSL 3.0's limit).
    ///   - outputCount: 1…8160 bytes.
    /// - Throws: `CryptoError.invalidArgument` for an out-of-range count,
    ///   empty key material or over-long info; `CryptoError.openSSL` if
    ///   OpenSSL fails.
    public static func sha256(
        inputKeyMaterial: some Collection<UInt8>,
        salt: some Collection<UInt8> = [UInt8](),
        info: some Collection<UInt8> = [UInt8](),
        outputCount: Int
    ) throws(CryptoError) -> [UInt8] {
        guard outputCount > 0, outputCount <= maximumSHA256OutputCount else {
            throw .invalidArgument(reason: "HKDF-SHA256 output count must be 1...\(maximumSHA256OutputCount)")
        }
        guard !inputKeyMaterial.isEmpty else {
            throw .invalidArgument(reason: "HKDF input key material is empty")
        }
        guard info.count <= 1024 else {
            throw .invalidArgument(reason: "HKDF info longer than 1024 bytes")
        }
        return try inputKeyMaterial.withInputBytes { (ikm) throws(CryptoError) in
            try salt.withInputBytes { (salt) throws(CryptoError) in
                try info.withInputBytes { (info) throws(CryptoError) in
                    try derive(ikm: ikm, salt: salt, info: info, outputCount: outputCount)
                }
            }
        }
    }

    private static func derive(
        ikm: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, info: UnsafeRawBufferPointer, outputCount: Int
    ) throws(CryptoError) -> [UInt8] {
        guard let kdf = EVP_KDF_fetch(nil, "HKDF", nil) else { throw OpenSSLError.capture("EVP_KDF_fetch") }
        let context = EVP_KDF_CTX_new(kdf)
        EVP_KDF_free(kdf)  // the context holds its own reference
        guard let context else { throw OpenSSLError.capture("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(context) }

        var params: [OSSL_PARAM] = [
            OSSL_PARAM_construct_utf8_string(CName.pointer(CName.digest), CName.mutablePointer(CName.sha256), 0),
            OSSL_PARAM_construct_octet_string(CName.pointer(CName.key), UnsafeMutableRawPointer(mutating: ikm.baseAddress), ikm.count),
        ]
        if salt.count > 0 {
            params.append(OSSL_PARAM_construct_octet_string(
                CName.pointer(CName.salt), UnsafeMutableRawPointer(mutating: salt.baseAddress), salt.count))
        }
        if info.count > 0 {
            params.append(OSSL_PARAM_construct_octet_string(
                CName.pointer(CName.info), UnsafeMutableRawPointer(mutating: info.baseAddress), info.count))
        }
        params.append(OSSL_PARAM_construct_end())

        var failure: CryptoError?
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            if EVP_KDF_derive(context, buffer.baseAddress, outputCount, params) == 1 {
                initialized = outputCount
            } else {
                failure = OpenSSLError.capture("EVP_KDF_derive")
                initialized = 0
            }
        }
        if let failure { throw failure }
        return output
    }
}
