import Core
import Crypto

/// Seals and opens session cards with the directory key, a `ServerSealer`
/// under the card labels: one key per gateway, derived from the
/// configured directory secret (every instance with the same secret
/// derives the same key) or random per process when none is configured.
/// Prints as `<redacted>`.
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

    /// Card operations fail with `SessionError.crypto` when it has no key.
    private let sealer: ServerSealer

    /// The directory for `secret`, or a random one for this process.
    init(secret: Secret?) {
        sealer = ServerSealer(secret: secret, info: Self.keyInfo, label: Self.aadLabel)
    }

    /// The card key of the session stored under `storeKey`.
    static func cardKey(storeKey: String) -> String { cardPrefix + storeKey }

    /// Seals `content` as the card stored under `cardKey`.
    func seal(_ content: CardContent, cardKey: String, version: UInt64, absoluteExpiry: UInt64)
        throws(CryptoError) -> StoredRecord
    {
        try sealer.seal(content.encoded(), storeKey: cardKey, version: version, absoluteExpiry: absoluteExpiry)
    }

    /// The card stored under `cardKey`, or nil when it does not open (another
    /// directory key, tampered, moved) or does not decode.
    func open(_ record: StoredRecord, cardKey: String) -> CardContent? {
        guard let plaintext = sealer.open(record, storeKey: cardKey),
              let content = CardContent(decoding: plaintext),
              Self.cardKey(storeKey: content.storeKey) == cardKey
        else { return nil }
        return content
    }

    var description: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
