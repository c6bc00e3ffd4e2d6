import COpenSSL

/// AES-256-GCM authenticated encryption with a random 96-bit nonce.
///
/// The sealed form is `nonce (12) ‖ ciphertext ‖ tag (16)`, so it is 28
/// bytes longer than the plaintext. Random nonces are safe for up to about
/// 2³² messages per key (NIST SP 800-38D §8.3); rotate keys well before that.
public enum AESGCM {
    /// The key length in bytes (AES-256).
    public static let keyByteCount = 32
    /// The nonce length in bytes.
    public static let nonceByteCount = 12
    /// The authentication tag length in bytes.
    public static let tagByteCount = 16
    /// How many bytes `seal` adds to the plaintext.
    public static let overhead = nonceByteCount + tagByteCount

    /// Encrypts and authenticates `plaintext` and authenticates
    /// `associatedData`, under a fresh random nonce.
    ///
    /// - Returns: `nonce ‖ ciphertext ‖ tag`.
    /// - Throws: `CryptoError.invalidKeySize` unless the key is 32 bytes;
    ///   `CryptoError.openSSL` if OpenSSL fails.
    @inlinable
    public static func seal(
        _ plaintext: some Collection<UInt8>,
        key: some Collection<UInt8>,
        associatedData: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> [UInt8] {
        try plaintext.withInputBytes { (plaintext) throws(CryptoError) in
            try key.withInputBytes { (key) throws(CryptoError) in
                try associatedData.withInputBytes { (aad) throws(CryptoError) in
                    try seal(plaintextBytes: plaintext, keyBytes: key, aadBytes: aad, nonce: nil)
                }
            }
        }
    }

    /// Test seam: seals under an explicit nonce, for known-answer tests.
    /// Never reuse a nonce with the same key.
    static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []
    ) throws(CryptoError) -> [UInt8] {
        guard nonce.count == nonceByteCount else {
            throw .invalidArgument(reason: "AES-GCM nonce must be \(nonceByteCount) bytes")
        }
        return try plaintext.withInputBytes { (plaintext) throws(CryptoError) in
            try key.withInputBytes { (key) throws(CryptoError) in
                try associatedData.withInputBytes { (aad) throws(CryptoError) in
                    try nonce.withInputBytes { (nonce) throws(CryptoError) in
                        try seal(plaintextBytes: plaintext, keyBytes: key, aadBytes: aad, nonce: nonce)
                    }
                }
            }
        }
    }

    /// Verifies and decrypts the output of `seal`.
    ///
    /// - Throws: `CryptoError.authenticationFailure` for any tampering,
    ///   truncation, wrong key or wrong associated data (no plaintext is
    ///   released then); `CryptoError.invalidKeySize` unless the key is 32
    ///   bytes.
    @inlinable
    public static func open(
        _ sealed: some Collection<UInt8>,
        key: some Collection<UInt8>,
        associatedData: some Collection<UInt8> = [UInt8]()
    ) throws(CryptoError) -> [UInt8] {
        try sealed.withInputBytes { (sealed) throws(CryptoError) in
            try key.withInputBytes { (key) throws(CryptoError) in
                try associatedData.withInputBytes { (aad) throws(CryptoError) in
                    try open(sealedBytes: sealed, keyBytes: key, aadBytes: aad)
                }
            }
        }
    }

    // MARK: - Implementation

    /// Seals into one buffer: the nonce is copied from `nonce`, or drawn
    /// from `SecureRandom` when it is nil.
    @usableFromInline
    static func seal(
        plaintextBytes plaintext: UnsafeRawBufferPointer, keyBytes key: UnsafeRawBufferPointer,
        aadBytes aad: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer?
    ) throws(CryptoError) -> [UInt8] {
        guard key.count == keyByteCount else { throw .invalidKeySize(expected: keyByteCount, actual: key.count) }
        var failure: CryptoError?
        let total = plaintext.count + overhead
        let sealed = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            initialized = 0
            do throws(CryptoError) {
                let output = UnsafeMutableRawBufferPointer(buffer)
                let nonceSlot = UnsafeMutableRawBufferPointer(rebasing: output[..<nonceByteCount])
                if let nonce { nonceSlot.copyMemory(from: nonce) } else { try SecureRandom.fill(nonceSlot) }
                try encrypt(plaintext: plaintext, key: key, aad: aad, into: output)
                initialized = total
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return sealed
    }

    /// Encrypts into `output`, whose first 12 bytes already hold the nonce.
    private static func encrypt(
        plaintext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        let plaintextCount = try plaintext.int32Count("AES-GCM plaintext")
        let aadCount = try aad.int32Count("AES-GCM associated data")
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.capture("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let base = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let body = base + nonceByteCount
        var written: Int32 = 0
        guard EVP_EncryptInit_ex2(context, EVP_aes_256_gcm(), key.bytePointer, base, nil) == 1 else {
            throw OpenSSLError.capture("EVP_EncryptInit_ex2")
        }
        if aadCount > 0, EVP_EncryptUpdate(context, nil, &written, aad.bytePointer, aadCount) != 1 {
            throw OpenSSLError.capture("EVP_EncryptUpdate(aad)")
        }
        if plaintextCount > 0, EVP_EncryptUpdate(context, body, &written, plaintext.bytePointer, plaintextCount) != 1 {
            throw OpenSSLError.capture("EVP_EncryptUpdate")
        }
        guard EVP_EncryptFinal_ex(context, body + plaintext.count, &written) == 1 else {
            throw OpenSSLError.capture("EVP_EncryptFinal_ex")
        }
        let tag = body + plaintext.count
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagByteCount), tag) == 1 else {
            throw OpenSSLError.capture("EVP_CIPHER_CTX_ctrl(GET_TAG)")
        }
    }

    @usableFromInline
    static func open(
        sealedBytes sealed: UnsafeRawBufferPointer, keyBytes key: UnsafeRawBufferPointer,
        aadBytes aad: UnsafeRawBufferPointer
    ) throws(CryptoError) -> [UInt8] {
        guard key.count == keyByteCount else { throw .invalidKeySize(expected: keyByteCount, actual: key.count) }
        guard sealed.count >= overhead else { throw .authenticationFailure }
        let ciphertextCount = sealed.count - overhead
        guard let ciphertextCount32 = Int32(exactly: ciphertextCount) else {
            throw .invalidArgument(reason: "AES-GCM ciphertext longer than \(Int32.max) bytes")
        }
        let aadCount = try aad.int32Count("AES-GCM associated data")
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.capture("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var failure: CryptoError?
        let plaintext = [UInt8](unsafeUninitializedCapacity: ciphertextCount) { buffer, initialized in
            if let out = buffer.baseAddress {
                failure = decrypt(context: context, sealed: sealed, key: key, aad: aad, aadCount: aadCount,
                                  ciphertextCount: ciphertextCount32, into: out)
            } else {
                // Empty plaintext: OpenSSL still wants a non-nil output pointer.
                var placeholder: UInt8 = 0
                failure = withUnsafeMutablePointer(to: &placeholder) { out in
                    decrypt(context: context, sealed: sealed, key: key, aad: aad, aadCount: aadCount,
                            ciphertextCount: 0, into: out)
                }
            }
            initialized = failure == nil ? ciphertextCount : 0
        }
        if let failure { throw failure }
        return plaintext
    }

    /// Decrypts `sealed` into `out` and checks the tag; returns the failure, if any.
    private static func decrypt(
        context: OpaquePointer, sealed: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer, aadCount: Int32, ciphertextCount: Int32, into out: UnsafeMutablePointer<UInt8>
    ) -> CryptoError? {
        let nonce = sealed.bytePointer
        let ciphertext = nonce + nonceByteCount
        let count = Int(ciphertextCount)
        let tag = UnsafeMutableRawPointer(mutating: ciphertext + count)
        var written: Int32 = 0
        guard EVP_DecryptInit_ex2(context, EVP_aes_256_gcm(), key.bytePointer, nonce, nil) == 1 else {
            return OpenSSLError.capture("EVP_DecryptInit_ex2")
        }
        guard aadCount == 0 || EVP_DecryptUpdate(context, nil, &written, aad.bytePointer, aadCount) == 1,
              count == 0 || EVP_DecryptUpdate(context, out, &written, ciphertext, ciphertextCount) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagByteCount), tag) == 1
        else { return OpenSSLError.capture("EVP_DecryptUpdate") }
        guard EVP_DecryptFinal_ex(context, out + count, &written) == 1 else {
            // Tag mismatch: wipe the unauthenticated plaintext.
            OPENSSL_cleanse(out, count)
            OpenSSLError.discard()
            return .authenticationFailure
        }
        return nil
    }
}
