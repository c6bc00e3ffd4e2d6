import COpenSSL

/// Converts P-256 ECDSA signatures between DER (`ECDSA-Sig-Value`, used by
/// WebAuthn and OpenSSL) and fixed-width `r ‖ s` (used by JWS ES256).
enum ECDSASignature {
    /// Bytes in each of r and s for P-256.
    static let scalarByteCount = 32

    /// `r ‖ s` (64 bytes) from DER, or nil if the DER is malformed, has
    /// trailing bytes, or holds a scalar wider than 32 bytes.
    static func raw(fromDER der: UnsafeRawBufferPointer) -> [UInt8]? {
        var cursor: UnsafePointer<UInt8>? = der.bytePointer
        guard let signature = d2i_ECDSA_SIG(nil, &cursor, der.count) else {
            OpenSSLError.discard()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        guard cursor == der.bytePointer + der.count,
              let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature),
              BN_num_bits(r) <= scalarByteCount * 8, BN_num_bits(s) <= scalarByteCount * 8
        else { return nil }
        let width = Int32(scalarByteCount)
        return [UInt8](unsafeUninitializedCapacity: 2 * scalarByteCount) { buffer, initialized in
            let base = buffer.baseAddress!
            let ok = BN_bn2binpad(r, base, width) == width && BN_bn2binpad(s, base + scalarByteCount, width) == width
            initialized = ok ? 2 * scalarByteCount : 0
        }.nilIfEmpty
    }

    /// DER from `r ‖ s`, or nil unless `raw` is exactly 64 bytes.
    static func der(fromRaw raw: UnsafeRawBufferPointer) -> [UInt8]? {
        guard raw.count == 2 * scalarByteCount else { return nil }
        let width = Int32(scalarByteCount)
        guard let signature = ECDSA_SIG_new() else {
            OpenSSLError.discard()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw.bytePointer, width, nil)
        let s = BN_bin2bn(raw.bytePointer + scalarByteCount, width, nil)
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            OpenSSLError.discard()
            return nil
        }
        let length = Int(i2d_ECDSA_SIG(signature, nil))
        guard length > 0 else {
            OpenSSLError.discard()
            return nil
        }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            var cursor = buffer.baseAddress
            initialized = Int(i2d_ECDSA_SIG(signature, &cursor)) == length ? length : 0
        }.nilIfEmpty
    }
}

extension Array where Element == UInt8 {
    /// nil for an empty array; used where a successful result is never empty.
    fileprivate var nilIfEmpty: [UInt8]? { isEmpty ? nil : self }
}
