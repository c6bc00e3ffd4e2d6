import Crypto

/// How a cookie value becomes a store key and a sealing key, and how a
/// record is sealed, for one kind of record (sessions, flow state). Each
/// kind has its own HKDF labels, so no value derived for one kind is valid
/// for another.
///
/// - store key = base64url(HKDF-SHA256(cookie bytes, info: `<kind>/store-key/v1`, 32 bytes));
///   one-way, so a key read from the store cannot be turned back into a cookie;
/// - sealing key = HKDF-SHA256(cookie bytes, info: `<kind>/seal-key/v1`, 32 bytes);
/// - sealed record = AES-256-GCM(nonce ‖ ciphertext ‖ tag), associated data
///   `modgud-bff/<kind>/v1 ‖ 0 ‖ store key ‖ 0 ‖ version (8, BE) ‖ absolute
///   expiry (8, BE)`: a record moved to another key, given another version
///   or expiry, flipped or truncated does not open.
struct RecordScheme: Sendable {
    let keyInfo: [UInt8]
    let sealInfo: [UInt8]
    let aadLabel: [UInt8]
    /// Prepended to the derived key so flow records are told apart in the store.
    let keyPrefix: String

    static let session = RecordScheme(kind: "session", keyPrefix: "")
    static let flow = RecordScheme(kind: "flow", keyPrefix: "flow:")
    /// Authorization-code flow records: several per flow cookie, one per
    /// `state`, each derived from the cookie and its key together.
    static let codeFlow = RecordScheme(kind: "code-flow", keyPrefix: "flow:")
    /// Cross-device sign-ins' secret records (the device code): derived
    /// from the `__Host-bff-xd` cookie and the request id together.
    static let crossDevice = RecordScheme(kind: "cross-device", keyPrefix: "xd:")
    /// Cross-device sign-ins' public context records, derived from the
    /// request id alone (its 256 bits stand in for a cookie's).
    static let crossDeviceContext = RecordScheme(kind: "cross-device-context", keyPrefix: "xd:")

    /// The cookie value's length in random bytes (256 bits).
    static let cookieByteCount = 32

    init(kind: String, keyPrefix: String) {
        keyInfo = Array("modgud-bff/\(kind)/store-key/v1".utf8)
        sealInfo = Array("modgud-bff/\(kind)/seal-key/v1".utf8)
        aadLabel = Array("modgud-bff/\(kind)/v1".utf8)
        self.keyPrefix = keyPrefix
    }

    /// A fresh random cookie value and its handle (with `key`, see
    /// `handle(cookieValue:key:)`).
    func newHandle(key: String? = nil) throws(CryptoError) -> (cookieValue: String, handle: RecordHandle) {
        let bytes = try SecureRandom.bytes(count: Self.cookieByteCount)
        return (Base64URL.encode(bytes), try handle(cookieBytes: bytes, key: key))
    }

    /// The handle for a cookie value as received, or nil when it is not
    /// exactly 32 bytes of canonical unpadded base64url. With `key`, the
    /// handle of a record kept under the cookie and that key together (the
    /// cookie's 32 bytes, a zero byte, then `key`): found only with both.
    func handle(cookieValue: Substring.UTF8View, key: String? = nil) throws(CryptoError) -> RecordHandle? {
        // 43 characters carry 32 bytes; check before decoding anything longer.
        guard cookieValue.count == 43, let bytes = Base64URL.decode(utf8: cookieValue),
              bytes.count == Self.cookieByteCount
        else { return nil }
        return try handle(cookieBytes: bytes, key: key)
    }

    private func handle(cookieBytes: [UInt8], key: String?) throws(CryptoError) -> RecordHandle {
        guard let key else { return try handle(cookieBytes: cookieBytes) }
        return try handle(cookieBytes: cookieBytes + [0] + Array(key.utf8))
    }

    private func handle(cookieBytes: [UInt8]) throws(CryptoError) -> RecordHandle {
        // One extraction, two expansions: the same as two full HKDF calls.
        let key = try HKDF.extractSHA256(inputKeyMaterial: cookieBytes)
        let storeKey = try HKDF.expandSHA256(key, info: keyInfo, outputCount: 32)
        let sealKey = try HKDF.expandSHA256(key, info: sealInfo, outputCount: AESGCM.keyByteCount)
        return RecordHandle(storeKey: keyPrefix + Base64URL.encode(storeKey), sealKey: sealKey)
    }

    /// Seals `plaintext` for the record stored under `handle` with `version`
    /// and `absoluteExpiry`.
    func seal(_ plaintext: [UInt8], handle: RecordHandle, version: UInt64, absoluteExpiry: UInt64)
        throws(CryptoError) -> [UInt8]
    {
        try AESGCM.seal(plaintext, key: handle.sealKey,
                        associatedData: associatedData(handle: handle, version: version, absoluteExpiry: absoluteExpiry))
    }

    /// Opens a stored record, or nil when it fails authentication.
    func open(_ record: StoredRecord, handle: RecordHandle) -> [UInt8]? {
        let aad = associatedData(handle: handle, version: record.version, absoluteExpiry: record.absoluteExpiry)
        return try? AESGCM.open(record.bytes, key: handle.sealKey, associatedData: aad)
    }

    private func associatedData(handle: RecordHandle, version: UInt64, absoluteExpiry: UInt64) -> [UInt8] {
        var aad = aadLabel
        aad.reserveCapacity(aadLabel.count + handle.storeKey.utf8.count + 18)
        aad.append(0)
        aad.append(contentsOf: handle.storeKey.utf8)
        aad.append(0)
        ByteWriter.appendUInt64(version, to: &aad)
        ByteWriter.appendUInt64(absoluteExpiry, to: &aad)
        return aad
    }
}

/// The key material derived from one cookie value: where its record lives
/// and the key that seals it. Prints as `<redacted>`. A class, immutable:
/// a session and its memo entry are copied on every request, and a copy
/// then retains one reference instead of each field.
final class RecordHandle: Sendable, CustomStringConvertible, CustomReflectable {
    /// The record's key in the store (base64url, 43 characters, after the
    /// scheme's prefix).
    let storeKey: String
    /// The AES-256-GCM key.
    let sealKey: [UInt8]

    init(storeKey: String, sealKey: [UInt8]) {
        self.storeKey = storeKey
        self.sealKey = sealKey
    }

    var description: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
