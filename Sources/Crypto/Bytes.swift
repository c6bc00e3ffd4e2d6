import COpenSSL

// How byte input reaches OpenSSL.
//
// Public entry points take `some Collection<UInt8>` so callers can pass an
// array, a slice or a `String.UTF8View` without copying. The hot ones (hash,
// MAC, AES-GCM, base64, constant-time compare) are `@inlinable` shims that
// only fetch contiguous bytes and call a non-generic `@usableFromInline`
// core taking `UnsafeRawBufferPointer`s: the generic part is then
// specialised in the caller's module, instead of paying for runtime generic
// metadata on every call. No C type crosses the module boundary.

extension Collection<UInt8> {
    /// Calls `body` with this collection's bytes, copying only when the
    /// storage is not contiguous. An empty collection is passed as a valid
    /// (non-nil) pointer with count 0, because some OpenSSL calls reject
    /// NULL even for zero-length input.
    @inlinable
    func withInputBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        var result: Result<R, E>?
        _ = self.withContiguousStorageIfAvailable { buffer in
            result = Result { () throws(E) -> R in try _callWithNonNil(UnsafeRawBufferPointer(buffer), body) }
        }
        if let result { return try result.get() }
        let copy = Array(self)
        let copied = copy.withUnsafeBytes { buffer in
            Result { () throws(E) -> R in try _callWithNonNil(buffer, body) }
        }
        return try copied.get()
    }
}

/// Calls `body` with `buffer`, or with a zero-length buffer at a valid
/// address when `buffer` has none.
@inlinable
func _callWithNonNil<R, E: Error>(
    _ buffer: UnsafeRawBufferPointer,
    _ body: (UnsafeRawBufferPointer) throws(E) -> R
) throws(E) -> R {
    if buffer.baseAddress != nil { return try body(buffer) }
    var placeholder: UInt8 = 0
    let result = withUnsafeBytes(of: &placeholder) { raw in
        Result { () throws(E) -> R in try body(UnsafeRawBufferPointer(start: raw.baseAddress, count: 0)) }
    }
    return try result.get()
}

extension UnsafeRawBufferPointer {
    /// The start as the `const unsigned char *` OpenSSL takes; never nil
    /// for buffers made by `withInputBytes`.
    var bytePointer: UnsafePointer<UInt8> {
        baseAddress!.assumingMemoryBound(to: UInt8.self)
    }

    /// The count as a C `int`, or an error when it does not fit.
    func int32Count(_ what: StaticString) throws(CryptoError) -> Int32 {
        guard let value = Int32(exactly: count) else {
            throw .invalidArgument(reason: "\(what) longer than \(Int32.max) bytes")
        }
        return value
    }
}

/// Fixed C strings for OSSL_PARAM names and algorithm names. OSSL_PARAM
/// stores the key pointer rather than copying it, so the names must outlive
/// the parameter array: static strings do, Swift `String` temporaries do not.
enum CName {
    static let sha256: StaticString = "SHA256"
    static let digest: StaticString = "digest"        // OSSL_KDF_PARAM_DIGEST
    static let key: StaticString = "key"              // OSSL_KDF_PARAM_KEY
    static let salt: StaticString = "salt"            // OSSL_KDF_PARAM_SALT
    static let info: StaticString = "info"            // OSSL_KDF_PARAM_INFO
    static let group: StaticString = "group"          // OSSL_PKEY_PARAM_GROUP_NAME
    static let publicKey: StaticString = "pub"        // OSSL_PKEY_PARAM_PUB_KEY
    static let ecPublicX: StaticString = "qx"         // OSSL_PKEY_PARAM_EC_PUB_X
    static let ecPublicY: StaticString = "qy"         // OSSL_PKEY_PARAM_EC_PUB_Y
    static let rsaN: StaticString = "n"               // OSSL_PKEY_PARAM_RSA_N
    static let rsaE: StaticString = "e"               // OSSL_PKEY_PARAM_RSA_E
    static let prime256v1: StaticString = "prime256v1"

    /// The static string as a `const char *`.
    static func pointer(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// The static string as the `char *` that OSSL_PARAM constructors take;
    /// OpenSSL only reads it when the parameters are passed in.
    static func mutablePointer(_ name: StaticString) -> UnsafeMutablePointer<CChar> {
        UnsafeMutableRawPointer(mutating: name.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
