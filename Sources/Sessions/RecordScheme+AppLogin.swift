import Crypto

// The app hand-off's records (Docs/handoff.md): a request under a handle
// derived from its id like a cookie's, and a pending code stored under its
// SHA-256 alone.
extension RecordScheme {
    /// A native app's sign-in request, keyed and sealed by derivations of
    /// its id (the id is the "cookie value").
    static let appRequest = RecordScheme(kind: "app-request", keyPrefix: "app-request:")
    /// A pending hand-off code: stored under `app-code:` ‖
    /// base64url(SHA-256(code)), sealed with HKDF-SHA256(code, info:
    /// `modgud-bff/app-code/seal-key/v1`).
    static let appCode = RecordScheme(kind: "app-code", keyPrefix: "app-code:")

    /// The handle of a code as received, or nil when it is not exactly 32
    /// bytes of canonical unpadded base64url. The store key is the code's
    /// SHA-256, so that the store holds the code only as its digest; the
    /// sealing key is another, one-way derivation of the code.
    func digestHandle(code: Substring.UTF8View) throws(CryptoError) -> RecordHandle? {
        guard code.count == 43, let bytes = Base64URL.decode(utf8: code), bytes.count == Self.cookieByteCount
        else { return nil }
        return try digestHandle(codeBytes: bytes)
    }

    /// A fresh random code and its handle (see `digestHandle(code:)`).
    func newDigestHandle() throws(CryptoError) -> (code: String, handle: RecordHandle) {
        let bytes = try SecureRandom.bytes(count: Self.cookieByteCount)
        return (Base64URL.encode(bytes), try digestHandle(codeBytes: bytes))
    }

    private func digestHandle(codeBytes: [UInt8]) throws(CryptoError) -> RecordHandle {
        let code = Base64URL.encode(codeBytes)
        let storeKey = keyPrefix + Base64URL.encode(SHA256.hash(code.utf8))
        let sealKey = try HKDF.sha256(inputKeyMaterial: codeBytes, info: sealInfo, outputCount: AESGCM.keyByteCount)
        return RecordHandle(storeKey: storeKey, sealKey: sealKey)
    }
}
