import Core
import Crypto
@testable import Sessions
import Testing

/// The records only the gateway opens keep their documented format: a
/// card or revocation note sealed by hand (key by HKDF from the secret,
/// AAD `label ‖ 0 ‖ store key ‖ 0 ‖ version ‖ absolute expiry`) opens with
/// the gateway's types, and theirs open by hand.
@Suite("ServerSealer format")
struct ServerSealerFormatTests {
    static let secret = "client-secret"
    static let expiry: UInt64 = 1_780_043_200_000

    static func key(info: String) throws -> [UInt8] {
        try HKDF.sha256(inputKeyMaterial: Array(secret.utf8), info: Array(info.utf8), outputCount: 32)
    }

    static func aad(_ label: String, _ storeKey: String, version: UInt64, expiry: UInt64) -> [UInt8] {
        var aad = Array(label.utf8) + [0] + Array(storeKey.utf8) + [0]
        for value in [version, expiry] { aad += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return aad
    }

    static let card = CardContent(handle: "AAECAwQFBgcICQoLDA0ODw", storeKey: "s-store-key", sealKey: Array(repeating: 7, count: 32),
                                  createdAt: 1_780_000_000_000, lastSeenAt: 1_780_000_018_000, method: .passkey,
                                  device: "Firefox on Linux", address: "192.0.2.1", sid: "sid-1")

    @Test func aCardSealedByHandOpensInTheDirectory() throws {
        let cardKey = SessionDirectory.cardKey(storeKey: Self.card.storeKey)
        #expect(cardKey == "card:s-store-key")
        let bytes = try AESGCM.seal(Self.card.encoded(), key: Self.key(info: "modgud-bff/session-directory/v1"),
                                    associatedData: Self.aad("modgud-bff/card/v1", cardKey, version: 3, expiry: Self.expiry))
        let directory = SessionDirectory(secret: Secret(Self.secret))
        let record = StoredRecord(bytes: bytes, version: 3, absoluteExpiry: Self.expiry)
        let opened = try #require(directory.open(record, cardKey: cardKey))
        #expect(opened.handle == Self.card.handle && opened.sealKey == Self.card.sealKey && opened.sid == "sid-1")
        #expect(opened.lastSeenAt == Self.card.lastSeenAt && opened.device == Self.card.device)
        var moved = record
        moved.version = 4
        #expect(directory.open(moved, cardKey: cardKey) == nil, "the version is bound")
        #expect(SessionDirectory(secret: Secret("other")).open(record, cardKey: cardKey) == nil)
    }

    @Test func aCardTheDirectorySealsOpensByHand() throws {
        let cardKey = SessionDirectory.cardKey(storeKey: Self.card.storeKey)
        let record = try SessionDirectory(secret: Secret(Self.secret))
            .seal(Self.card, cardKey: cardKey, version: 2, absoluteExpiry: Self.expiry)
        #expect(record.version == 2 && record.absoluteExpiry == Self.expiry)
        let plaintext = try AESGCM.open(record.bytes, key: Self.key(info: "modgud-bff/session-directory/v1"),
                                        associatedData: Self.aad("modgud-bff/card/v1", cardKey, version: 2, expiry: Self.expiry))
        #expect(plaintext == Self.card.encoded())
    }

    @Test func aRevocationNoteKeepsItsFormatBothWays() throws {
        let noteKey = AppLoginRevocations.noteKey(codeStoreKey: "code-store-key")
        #expect(noteKey.hasPrefix("app-revoke:"))
        let key = try Self.key(info: "modgud-bff/app-revocation/v1")
        let aad = Self.aad("modgud-bff/app-revoke/v1", noteKey, version: 1, expiry: Self.expiry)
        let notes = AppLoginRevocations(secret: Secret(Self.secret))

        var plaintext: [UInt8] = [1]
        for shift in (0..<8).reversed() { plaintext.append(UInt8(truncatingIfNeeded: UInt64(1_780_000_600_000) >> (shift * 8))) }
        let byHand = StoredRecord(bytes: try AESGCM.seal(plaintext + Self.lengthPrefixed("rt-1") + Self.lengthPrefixed("refresh_token"),
                                                         key: key, associatedData: aad), version: 1, absoluteExpiry: Self.expiry)
        let note = try #require(notes.open(byHand, noteKey: noteKey))
        #expect(note.token.revealed == "rt-1" && note.hint == "refresh_token" && note.due == 1_780_000_600_000)

        let sealed = try notes.seal(AppLoginRevocations.Note(token: Secret("rt-2"), hint: "access_token", due: 5),
                                    noteKey: noteKey, absoluteExpiry: Self.expiry)
        let opened = try AESGCM.open(sealed.bytes, key: key, associatedData: aad)
        #expect(opened == [1, 0, 0, 0, 0, 0, 0, 0, 5] + Self.lengthPrefixed("rt-2") + Self.lengthPrefixed("access_token"))
    }

    @Test func theTwoUsesDoNotOpenEachOthersRecords() throws {
        let sealer = ServerSealer(secret: Secret(Self.secret), info: AppLoginRevocations.keyInfo,
                                  label: AppLoginRevocations.aadLabel)
        let record = try sealer.seal(Self.card.encoded(), storeKey: "card:s-store-key", version: 1, absoluteExpiry: Self.expiry)
        #expect(sealer.open(record, storeKey: "card:s-store-key") == Self.card.encoded())
        #expect(SessionDirectory(secret: Secret(Self.secret)).open(record, cardKey: "card:s-store-key") == nil)
        #expect(String(describing: sealer) == "<redacted>" && Mirror(reflecting: sealer).children.isEmpty)
    }

    /// A short string with its length prefix (one varint byte below 128).
    static func lengthPrefixed(_ text: String) -> [UInt8] {
        [UInt8(text.utf8.count)] + Array(text.utf8)
    }
}
