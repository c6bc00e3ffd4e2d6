import Core
import Crypto

/// Seals and opens the records only the gateway itself opens (session
/// cards, hand-off revocation notes): one AES-256-GCM key per gateway and
/// use, derived from the directory secret (the client secret), so every
/// instance with the same secret opens what another sealed; random per
/// process when none is configured. Each use names its own key info and
/// associated-data label. Prints as `<redacted>`.
///
/// - key = HKDF-SHA256(secret, info: the use's key info, 32 bytes);
/// - sealed record = AES-256-GCM(nonce ‖ ciphertext ‖ tag), associated data
///   `label ‖ 0 ‖ store key ‖ 0 ‖ version (8, BE) ‖ absolute expiry (8, BE)`:
///   a record moved to another store key, or given another version or
///   expiry, does not open.
struct ServerSealer: Sendable, CustomStringConvertible, CustomReflectable {
    /// Nil only when OpenSSL could not produce a key; sealing then throws
    /// and nothing opens.
    private let key: [UInt8]?
    private let label: [UInt8]

    /// The sealer for `secret` (random for this process when nil or
    /// empty), keyed with HKDF `info`, binding records to `label`.
    init(secret: Secret?, info: [UInt8], label: [UInt8]) {
        if let secret, !secret.isEmpty {
            key = try? HKDF.sha256(inputKeyMaterial: Array(secret.revealed.utf8), info: info,
                                   outputCount: AESGCM.keyByteCount)
        } else {
            key = try? SecureRandom.bytes(count: AESGCM.keyByteCount)
        }
        self.label = label
    }

    /// `plaintext` sealed as the record stored under `storeKey`.
    func seal(_ plaintext: [UInt8], storeKey: String, version: UInt64, absoluteExpiry: UInt64)
        throws(CryptoError) -> StoredRecord
    {
        guard let key else { throw .invalidArgument(reason: "no sealing key for " + String(decoding: label, as: UTF8.self)) }
        let aad = associatedData(storeKey: storeKey, version: version, absoluteExpiry: absoluteExpiry)
        return StoredRecord(bytes: try AESGCM.seal(plaintext, key: key, associatedData: aad), version: version,
                            absoluteExpiry: absoluteExpiry)
    }

    /// The plaintext of the record stored under `storeKey`, or nil when it
    /// does not open (another key, tampered, moved).
    func open(_ record: StoredRecord, storeKey: String) -> [UInt8]? {
        guard let key else { return nil }
        let aad = associatedData(storeKey: storeKey, version: record.version, absoluteExpiry: record.absoluteExpiry)
        return try? AESGCM.open(record.bytes, key: key, associatedData: aad)
    }

    private func associatedData(storeKey: String, version: UInt64, absoluteExpiry: UInt64) -> [UInt8] {
        var aad = label
        aad.reserveCapacity(label.count + storeKey.utf8.count + 18)
        aad.append(0)
        aad.append(contentsOf: storeKey.utf8)
        aad.append(0)
        ByteWriter.appendUInt64(version, to: &aad)
        ByteWriter.appendUInt64(absoluteExpiry, to: &aad)
        return aad
    }

    var description: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
