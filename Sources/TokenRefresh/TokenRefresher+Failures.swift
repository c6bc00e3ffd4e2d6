import Crypto
import Modgud
import Sessions

/// A refresh that failed (Modgud's 429, or Modgud unavailable) is
/// remembered for a moment in the refresh store: the holder
/// writes it before releasing the lock and publishing the outcome, and
/// whoever takes the lock within `Settings.failureHold` answers the same
/// without asking Modgud. Otherwise a waiter that missed the published
/// outcome (its poll fell between the release and the message, or pub/sub
/// dropped the message) would send the refresh again to a Modgud that is
/// throttling or failing. The record is tagged with the session's key and
/// its expiry (`RefreshSignal+Authentication.swift`): one written by
/// anyone else, or kept past its expiry, is refused (counted and logged),
/// and the holder asks Modgud itself.
extension TokenRefresher {
    /// Remembers `result` when it is a failure the next holder should share.
    func rememberFailure(_ result: RefreshResult, lockName: String, key: MACKey) async {
        guard settings.failureHold > .zero, let signal = result.signal, RefreshResult(failure: signal) != nil else { return }
        let expiry = sessions.now &+ UInt64(settings.failureHold.wholeMilliseconds)
        let record = StoredRecord(bytes: signal.record(lockName: lockName, absoluteExpiry: expiry, key: key), absoluteExpiry: expiry)
        try? await store.rememberFailure(Self.failureKey(lockName), record: record, hold: settings.failureHold)
    }

    /// The failure remembered for the session `lockName` names, if one is
    /// younger than the hold.
    func recentFailure(lockName: String, key: MACKey) async -> RefreshResult? {
        guard settings.failureHold > .zero,
              let record = try? await store.recentFailure(Self.failureKey(lockName)) else { return nil }
        guard let signal = RefreshSignal(record: record, lockName: lockName, key: key),
              let failure = RefreshResult(failure: signal) else {
            signals.refuse("record", size: record.bytes.count)
            return nil
        }
        return record.absoluteExpiry > sessions.now ? failure : nil
    }

    /// The failure record's name; a session's store key never holds `:`.
    static func failureKey(_ lockName: String) -> String { "refresh-failed:" + lockName }
}

extension RefreshResult {
    /// The failure a published or remembered outcome stands for: Modgud's
    /// 429 or Modgud unavailable; nil for anything else.
    init?(failure signal: RefreshSignal?) {
        switch signal {
        case .rateLimited(let fields, let body)?:
            self = .rateLimited(.rateLimited(fields: fields.map { ($0.name, $0.value) }, body: body))
        case .unavailable?:
            self = .unavailable
        case .refreshed?, .ended?, nil:
            return nil
        }
    }
}
