import Crypto
import Sessions

/// What a refresh outcome looks like where other instances read it, and
/// how it is authenticated there: anyone able to write to Redis can
/// publish on the channel and write beside the session, so an outcome
/// counts only with a tag under the session's `refreshOutcomeKey`, which
/// only instances holding the session's cookie can derive. The tag covers
/// a label (message or record, so neither passes for the other), the lock
/// name, a record's absolute expiry and every byte of the payload.
///
/// - message (pub/sub): `<lock name> <tag, base64url> <payload>`;
/// - record (`refresh-failed:<lock name>`): `tag (32 bytes) ‖ payload`,
///   the tag also covering the record's absolute expiry, so that a record
///   kept longer than its writer meant is refused.
extension RefreshSignal {
    private static let messageLabel = Array("modgud-bff/refresh-signal/v1".utf8)
    private static let recordLabel = Array("modgud-bff/refresh-failed/v1".utf8)

    /// The message telling the waiters of `lockName` this outcome.
    func message(lockName: String, key: MACKey) -> [UInt8] {
        let payload = payload
        let tag = key.tag(Self.authenticated(Self.messageLabel, lockName: lockName, expiry: nil, payload[...]))
        return Array((lockName + " " + Base64URL.encode(tag) + " ").utf8) + payload
    }

    /// The lock name a message is about, and the rest of it, or nil when
    /// it has no lock name.
    static func lockName(of message: [UInt8]) -> (lockName: String, rest: ArraySlice<UInt8>)? {
        guard let space = message.firstIndex(of: UInt8(ascii: " ")), space > 0 else { return nil }
        return (String(decoding: message[..<space], as: UTF8.self), message[(space + 1)...])
    }

    /// The outcome a message's `rest` (after its lock name) holds, or nil
    /// when it does not parse or its tag is not `key`'s for it.
    init?(messageRest rest: ArraySlice<UInt8>, lockName: String, key: MACKey) {
        guard let space = rest.firstIndex(of: UInt8(ascii: " ")),
              let tag = Base64URL.decode(utf8: rest[..<space]), tag.count == MACKey.tagByteCount else { return nil }
        let payload = rest[(space + 1)...]
        guard key.verifies(tag, of: Self.authenticated(Self.messageLabel, lockName: lockName, expiry: nil, payload)) else {
            return nil
        }
        self.init(payload: payload)
    }

    /// The bytes of the failure record for `lockName` expiring at `absoluteExpiry`.
    func record(lockName: String, absoluteExpiry: UInt64, key: MACKey) -> [UInt8] {
        let payload = payload
        return key.tag(Self.authenticated(Self.recordLabel, lockName: lockName, expiry: absoluteExpiry, payload[...])) + payload
    }

    /// The outcome a failure record holds, or nil when it does not parse
    /// or its tag is not `key`'s for it.
    init?(record: StoredRecord, lockName: String, key: MACKey) {
        guard record.bytes.count > MACKey.tagByteCount else { return nil }
        let tag = record.bytes.prefix(MACKey.tagByteCount)
        let payload = record.bytes[MACKey.tagByteCount...]
        let data = Self.authenticated(Self.recordLabel, lockName: lockName, expiry: record.absoluteExpiry, payload)
        guard key.verifies(tag, of: data) else { return nil }
        self.init(payload: payload)
    }

    /// `label ‖ 0 ‖ lock name ‖ 0 ‖ [absolute expiry (8, BE)] ‖ payload`;
    /// a lock name is base64url, so it holds no 0.
    private static func authenticated(_ label: [UInt8], lockName: String, expiry: UInt64?,
                                      _ payload: ArraySlice<UInt8>) -> [UInt8] {
        var data = label
        data.reserveCapacity(label.count + lockName.utf8.count + 10 + payload.count)
        data.append(0)
        data.append(contentsOf: lockName.utf8)
        data.append(0)
        if let expiry { withUnsafeBytes(of: expiry.bigEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: payload)
        return data
    }
}
