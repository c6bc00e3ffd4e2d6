import Core
import Crypto

/// Seals and opens session cards with the directory key: one AES-256-GCM
/// key per gateway, derived from the configured directory secret (every
/// instance with the same secret derives the same key) or random per
/// process when none is configured. Prints as `<redacted>`.
///
/// - directory key = HKDF-SHA256(secret, info: `modgud-bff/session-directory/v1`, 32 bytes);
/// - card key (store) = `card:` ‖ the session's store key;
/// - sealed card = AES-256-GCM(nonce ‖ ciphertext ‖ tag), associated data
///   `modgud-bff/card/v1 ‖ 0 ‖ card key ‖ 0 ‖ version (8, BE) ‖ absolute
///   expiry (8, BE)`: a card moved to another key does not open.
struct SessionDirectory: Sendable, CustomStringConvertible, CustomReflectable {
    static let keyInfo = Array("modgud-bff/session-directory/v1".utf8)
    static let aadLabel = Array("modgud-bff/card/v1".utf8)
    /// Card keys start with this, followed by the session's store key.
    static let cardPrefix = "card:"

    /// Nil only when OpenSSL could not produce a key; card operations then
    /// fail with `SessionError.crypto`.
    private let key: [UInt8]?

    /// The directory for `secret`, or a random one for this process.
    init(secret: Secret?) {
        if let secret, !secret.isEmpty {
            key = try? HKDF.sha256(inputKeyMaterial: Array(secret.revealed.utf8), info: Self.keyInfo,
                                   outputCount: AESGCM.keyByteCount)
        } else {
            key = try? SecureRandom.bytes(count: AESGCM.keyByteCount)
        }
    }

    /// The card key of the session stored under `storeKey`.
    static func cardKey(storeKey: String) -> String { cardPrefix + storeKey }

    /// Seals `content` as the card stored under `cardKey`.
    func seal(_ content: CardContent, cardKey: String, version: UInt64, absoluteExpiry: UInt64)
        throws(CryptoError) -> StoredRecord
    {
        guard let key else { throw .invalidArgument(reason: "no session directory key") }
        let aad = Self.associatedData(cardKey: cardKey, version: version, absoluteExpiry: absoluteExpiry)
        let bytes = try AESGCM.seal(content.encoded(), key: key, associatedData: aad)
        return StoredRecord(bytes: bytes, version: version, absoluteExpiry: absoluteExpiry)
    }

    /// The card stored under `cardKey`, or nil when it does not open (another
    /// directory key, tampered, moved) or does not decode.
    func open(_ record: StoredRecord, cardKey: String) -> CardContent? {
        guard let key else { return nil }
        let aad = Self.associatedData(cardKey: cardKey, version: record.version, absoluteExpiry: record.absoluteExpiry)
        guard let plaintext = try? AESGCM.open(record.bytes, key: key, associatedData: aad),
              let content = CardContent(decoding: plaintext),
              Self.cardKey(storeKey: content.storeKey) == cardKey
        else { return nil }
        return content
    }

    private static func associatedData(cardKey: String, version: UInt64, absoluteExpiry: UInt64) -> [UInt8] {
        var aad = aadLabel
        aad.append(0)
        aad.append(contentsOf: cardKey.utf8)
        aad.append(0)
        ByteWriter.appendUInt64(version, to: &aad)
        ByteWriter.appendUInt64(absoluteExpiry, to: &aad)
        return aad
    }

    var description: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
