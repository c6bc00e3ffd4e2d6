import Core
import Crypto

/// Seals and opens the revocation notes of pending hand-off codes: beside
/// each code, a small record the gateway itself can open (the code's own
/// record opens only with the code), holding the one token to revoke at
/// Modgud when the code is never redeemed, and when that is due. One key
/// per gateway, derived from the directory secret (the client secret) as
/// the session cards' is, so every instance opens every note; random per
/// process when none is configured. Prints as `<redacted>`.
///
/// - note key = HKDF-SHA256(secret, info: `modgud-bff/app-revocation/v1`, 32 bytes);
/// - store key = `app-revoke:` ‖ hashedName(`modgud-bff/app-revoke/v1`, the code's store key);
/// - sealed note = AES-256-GCM, associated data `modgud-bff/app-revoke/v1 ‖ 0 ‖
///   store key ‖ 0 ‖ version (8, BE) ‖ absolute expiry (8, BE)`;
/// - plaintext: `format (1) = 1 · due (8) · token (lp) · hint (lp)`.
struct AppLoginRevocations: Sendable, CustomStringConvertible, CustomReflectable {
    static let keyInfo = Array("modgud-bff/app-revocation/v1".utf8)
    static let aadLabel = Array("modgud-bff/app-revoke/v1".utf8)
    /// The store index listing every note, for the sweep.
    static let index = "app-revocations"

    /// Nil only when OpenSSL could not produce a key.
    private let key: [UInt8]?

    init(secret: Secret?) {
        if let secret, !secret.isEmpty {
            key = try? HKDF.sha256(inputKeyMaterial: Array(secret.revealed.utf8), info: Self.keyInfo,
                                   outputCount: AESGCM.keyByteCount)
        } else {
            key = try? SecureRandom.bytes(count: AESGCM.keyByteCount)
        }
    }

    /// The note's store key for the code stored under `codeStoreKey`.
    static func noteKey(codeStoreKey: String) -> String {
        "app-revoke:" + SessionManager.hashedName(label: "modgud-bff/app-revoke/v1", codeStoreKey)
    }

    /// A note for `token`, due at `due` (Unix ms), kept until `absoluteExpiry`.
    func seal(_ note: Note, noteKey: String, absoluteExpiry: UInt64) throws(CryptoError) -> StoredRecord {
        guard let key else { throw .invalidArgument(reason: "no revocation note key") }
        var writer = ByteWriter(capacity: 32 + note.token.revealed.utf8.count)
        writer.byte(1)
        writer.uint64(note.due)
        writer.string(note.token.revealed)
        writer.string(note.hint)
        let aad = Self.associatedData(noteKey: noteKey, version: 1, absoluteExpiry: absoluteExpiry)
        return StoredRecord(bytes: try AESGCM.seal(writer.bytes, key: key, associatedData: aad), version: 1,
                            absoluteExpiry: absoluteExpiry)
    }

    /// The note under `noteKey`, or nil when it does not open or decode.
    func open(_ record: StoredRecord, noteKey: String) -> Note? {
        guard let key else { return nil }
        let aad = Self.associatedData(noteKey: noteKey, version: record.version, absoluteExpiry: record.absoluteExpiry)
        guard let plaintext = try? AESGCM.open(record.bytes, key: key, associatedData: aad) else { return nil }
        var reader = ByteReader(plaintext)
        guard reader.byte() == 1, let due = reader.uint64(), let token = reader.string(), let hint = reader.string(),
              reader.isAtEnd else { return nil }
        return Note(token: Secret(token), hint: hint, due: due)
    }

    private static func associatedData(noteKey: String, version: UInt64, absoluteExpiry: UInt64) -> [UInt8] {
        var aad = aadLabel
        aad.append(0)
        aad.append(contentsOf: noteKey.utf8)
        aad.append(0)
        ByteWriter.appendUInt64(version, to: &aad)
        ByteWriter.appendUInt64(absoluteExpiry, to: &aad)
        return aad
    }

    /// One token to revoke, and when.
    struct Note: Sendable {
        let token: Secret
        /// `refresh_token` or `access_token`.
        let hint: String
        /// Unix ms after which an unredeemed code's token is revoked.
        let due: UInt64
    }

    var description: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
