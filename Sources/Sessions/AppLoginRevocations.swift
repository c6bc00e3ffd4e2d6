import Core
import Crypto

/// Seals and opens the revocation notes of pending hand-off codes: beside
/// each code, a small record the gateway itself can open (the code's own
/// record opens only with the code), holding the one token to revoke at
/// Modgud when the code is never redeemed, and when that is due. A
/// `ServerSealer` under the note labels: one key per gateway, derived from
/// the directory secret (the client secret) as the session cards' is, so
/// every instance opens every note; random per process when none is
/// configured. Prints as `<redacted>`.
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

    /// Sealing fails with a `CryptoError` when it has no key.
    private let sealer: ServerSealer

    init(secret: Secret?) {
        sealer = ServerSealer(secret: secret, info: Self.keyInfo, label: Self.aadLabel)
    }

    /// The note's store key for the code stored under `codeStoreKey`.
    static func noteKey(codeStoreKey: String) -> String {
        "app-revoke:" + SessionManager.hashedName(label: "modgud-bff/app-revoke/v1", codeStoreKey)
    }

    /// A note for `token`, due at `due` (Unix ms), kept until `absoluteExpiry`.
    func seal(_ note: Note, noteKey: String, absoluteExpiry: UInt64) throws(CryptoError) -> StoredRecord {
        var writer = ByteWriter(capacity: 32 + note.token.revealed.utf8.count)
        writer.byte(1)
        writer.uint64(note.due)
        writer.string(note.token.revealed)
        writer.string(note.hint)
        return try sealer.seal(writer.bytes, storeKey: noteKey, version: 1, absoluteExpiry: absoluteExpiry)
    }

    /// The note under `noteKey`, or nil when it does not open or decode.
    func open(_ record: StoredRecord, noteKey: String) -> Note? {
        guard let plaintext = sealer.open(record, storeKey: noteKey) else { return nil }
        var reader = ByteReader(plaintext)
        guard reader.byte() == 1, let due = reader.uint64(), let token = reader.string(), let hint = reader.string(),
              reader.isAtEnd else { return nil }
        return Note(token: Secret(token), hint: hint, due: due)
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
