import COpenSSL

/// Owns one `EVP_PKEY` and frees it when the last reference goes away. The
/// public key types are structs holding one of these, so copies share the
/// same immutable OpenSSL key.
///
/// `@unchecked Sendable` is sound because:
/// - `pointer` is a `let`, set once in `init`, and nothing in this module
///   mutates the key afterwards (no `set0`/`set1`/`assign` calls);
/// - every operation (`sign`, `verify`, parameter export) makes its own
///   `EVP_MD_CTX`/`EVP_PKEY_CTX` per call, and openssl-threads(7) says
///   objects are thread-safe for calls that do not modify them ("two
///   threads can calculate a signature using two different EVP_PKEY_CTX
///   objects");
/// - the one cache OpenSSL 3 may write inside a shared key (a legacy key's
///   export to its provider) is updated under the key's own lock, and the
///   keys made here are provider-native from the start.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Padding to set on RSA contexts; other key types ignore it.
    enum Padding {
        case `default`
        case rsaPKCS1
    }

    /// True if `signature` is valid for `message`. `digest` is nil for
    /// algorithms that hash internally (Ed25519).
    func verify(
        signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer,
        digest: StaticString?, padding: Padding = .default
    ) -> Bool {
        guard let context = EVP_MD_CTX_new() else {
            OpenSSLError.discard()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        let mdname = digest.map(CName.pointer)
        guard EVP_DigestVerifyInit_ex(context, &keyContext, mdname, nil, nil, pointer, nil) == 1,
              Self.configure(keyContext, padding)
        else {
            OpenSSLError.discard()
            return false
        }
        let status = EVP_DigestVerify(context, signature.bytePointer, signature.count, message.bytePointer, message.count)
        // 0 is "does not verify", negative is a malformed signature: both are
        // answers, not faults, so the queue is emptied either way.
        if status != 1 { OpenSSLError.discard() }
        return status == 1
    }

    /// Signs `message`. `digest` is nil for algorithms that hash internally.
    func sign(message: UnsafeRawBufferPointer, digest: StaticString?, padding: Padding = .default) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.capture("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        let mdname = digest.map(CName.pointer)
        guard EVP_DigestSignInit_ex(context, &keyContext, mdname, nil, nil, pointer, nil) == 1,
              Self.configure(keyContext, padding)
        else { throw OpenSSLError.capture("EVP_DigestSignInit_ex") }
        var maximum = 0
        guard EVP_DigestSign(context, nil, &maximum, message.bytePointer, message.count) == 1 else {
            throw OpenSSLError.capture("EVP_DigestSign")
        }
        var failure: CryptoError?
        let signature = [UInt8](unsafeUninitializedCapacity: maximum) { buffer, initialized in
            var length = maximum
            if EVP_DigestSign(context, buffer.baseAddress, &length, message.bytePointer, message.count) == 1 {
                initialized = length
            } else {
                failure = OpenSSLError.capture("EVP_DigestSign")
                initialized = 0
            }
        }
        if let failure { throw failure }
        return signature
    }

    private static func configure(_ keyContext: OpaquePointer?, _ padding: Padding) -> Bool {
        switch padding {
        case .default: return true
        case .rsaPKCS1: return EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING) == 1
        }
    }

    /// Generates a key of `algorithm` ("EC", "ED25519", "RSA") after
    /// `configure` has set its parameters on the keygen context.
    static func generate(
        _ algorithm: StaticString, configure: (OpaquePointer) -> Bool = { _ in true }
    ) throws(CryptoError) -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, CName.pointer(algorithm), nil) else {
            throw OpenSSLError.capture("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) else {
            throw OpenSSLError.capture("EVP_PKEY_keygen_init")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw OpenSSLError.capture("EVP_PKEY_generate") }
        return EVPKey(taking: key)
    }

    /// Builds a public key of `algorithm` from OSSL_PARAM data, then runs
    /// OpenSSL's quick public-key check (for EC: on the curve, not infinity).
    static func publicKey(
        _ algorithm: StaticString, params: UnsafeMutablePointer<OSSL_PARAM>
    ) throws(CryptoError) -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, CName.pointer(algorithm), nil) else {
            throw OpenSSLError.capture("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pointer: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
              EVP_PKEY_fromdata(context, &pointer, modgud_evp_pkey_public_key_selection(), params) == 1,
              let pointer
        else {
            let error = OpenSSLError.capture("EVP_PKEY_fromdata")
            throw .invalidKey(reason: error.description)
        }
        let key = EVPKey(taking: pointer)
        guard let check = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw OpenSSLError.capture("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(check) }
        guard EVP_PKEY_public_check_quick(check) == 1 else {
            OpenSSLError.discard()
            throw .invalidKey(reason: "public key check failed")
        }
        return key
    }

    /// Reads a big-number parameter ("qx", "n", …) as unsigned big-endian
    /// bytes, left-padded with zeros to `paddedTo` when given, else minimal.
    func bigNumber(_ name: StaticString, paddedTo width: Int? = nil) throws(CryptoError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, CName.pointer(name), &number) == 1, let number else {
            throw OpenSSLError.capture("EVP_PKEY_get_bn_param")
        }
        defer { BN_free(number) }
        let count = width ?? (Int(BN_num_bits(number)) + 7) / 8
        var failure = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            failure = BN_bn2binpad(number, buffer.baseAddress, Int32(count)) != Int32(count)
            initialized = failure ? 0 : count
        }
        if failure { throw OpenSSLError.capture("BN_bn2binpad") }
        return bytes
    }
}
