/// The audit trail's stream: one JSON object a line, apart from the
/// operational log (its own sink, `BFF_AUDIT_LOG`),
///
///     {"ts":"2026-12-04T04:30:00.123Z","event":"audit.signin.succeeded","requestId":"…","traceId":"…","address":"198.51.100.23","method":"otp","sub":"…"}
///
/// Key order is fixed: `ts`, `event` (under `audit.`), `requestId`,
/// `traceId`, `address`, then the event's own fields. A ``Secret`` field
/// prints as `"<redacted>"`, as in the log.
public struct AuditLog: Sendable {
    /// Where lines go; nil: the trail is off.
    let sink: LogSink?

    /// A trail written to `sink`.
    public init(sink: LogSink) { self.sink = sink }

    private init() { sink = nil }

    /// No trail: nothing is written.
    public static let off = AuditLog()

    /// Whether lines are written at all.
    public var isEnabled: Bool { sink != nil }

    /// Writes one line for `event` (`audit.…`) of the request
    /// `requestID`/`traceID` from the browser at `address`.
    public func record(_ event: String, requestID: String, traceID: String, address: String,
                       _ fields: [(String, LogValue)] = []) {
        guard let sink else { return }
        var line: [UInt8] = []
        line.reserveCapacity(256 + fields.count * 32)
        line.append(contentsOf: #"{"ts":""#.utf8)
        Timestamp.appendNow(to: &line)
        line.append(contentsOf: #"","event":"#.utf8)
        JSONLine.appendString(event, to: &line)
        JSONLine.appendField("requestId", .string(requestID), to: &line)
        JSONLine.appendField("traceId", .string(traceID), to: &line)
        JSONLine.appendField("address", .string(address), to: &line)
        for (key, value) in fields {
            JSONLine.appendField(key, value, to: &line)
        }
        line.append(UInt8(ascii: "}"))
        sink.emit(&line)
    }
}
