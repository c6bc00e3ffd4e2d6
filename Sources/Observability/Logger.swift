/// Writes structured log lines: one JSON object per line,
///
///     {"ts":"2026-11-30T16:40:00.123Z","level":"info","event":"http.access","requestId":"…","status":200}
///
/// The key order is fixed: `ts`, `level`, `event`, then the metadata added
/// with ``with(_:_:)`` in the order it was added, then the fields of the call.
/// `ts`, `level` and `event` are reserved: do not use them as field names.
/// Event names are stable, dotted, lower-case (`http.access`, `server.start`).
///
/// A logger is a small value; copy it freely and derive per-request loggers
/// with ``with(_:_:)``. A line below ``level`` costs one comparison: the
/// check is inlined into the caller and nothing is formatted.
public struct Logger: Sendable {
    /// Lines below this level are dropped.
    public let level: LogLevel
    /// Where lines go.
    public let sink: LogSink
    /// The metadata, already rendered as `,"key":value` pairs.
    @usableFromInline let metadata: [UInt8]

    /// A logger that writes lines at `level` and above to `sink`.
    public init(level: LogLevel = .info, sink: LogSink = .standardOutput) {
        self.init(level: level, sink: sink, metadata: [])
    }

    private init(level: LogLevel, sink: LogSink, metadata: [UInt8]) {
        self.level = level
        self.sink = sink
        self.metadata = metadata
    }

    /// A logger whose every line also carries `key: value` (a request id,
    /// a connection id). The pair is rendered once, here.
    public func with(_ key: String, _ value: LogValue) -> Logger {
        var metadata = self.metadata
        JSONLine.appendField(key, value, to: &metadata)
        return Logger(level: level, sink: sink, metadata: metadata)
    }

    /// The same logger with another minimum level.
    public func with(level: LogLevel) -> Logger {
        Logger(level: level, sink: sink, metadata: metadata)
    }

    /// Whether a line at `level` would be written; check it before building
    /// costly fields.
    @inlinable
    public func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    /// Writes one line for `event` at `level`, if `level` is enabled.
    @inlinable
    public func log(_ level: LogLevel, _ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        guard level >= self.level else { return }
        write(level, event, fields)
    }

    /// Writes a `debug` line.
    @inlinable
    public func debug(_ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.debug, event, fields)
    }

    /// Writes an `info` line.
    @inlinable
    public func info(_ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.info, event, fields)
    }

    /// Writes a `warning` line.
    @inlinable
    public func warning(_ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.warning, event, fields)
    }

    /// Writes an `error` line.
    @inlinable
    public func error(_ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.error, event, fields)
    }

    @usableFromInline
    func write(_ level: LogLevel, _ event: String, _ fields: KeyValuePairs<String, LogValue>) {
        var line: [UInt8] = []
        line.reserveCapacity(128 + metadata.count + fields.count * 32)
        line.append(contentsOf: #"{"ts":""#.utf8)
        Timestamp.appendNow(to: &line)
        line.append(contentsOf: #"","level":""#.utf8)
        line.append(contentsOf: level.rawValue.utf8)
        line.append(contentsOf: #"","event":"#.utf8)
        JSONLine.appendString(event, to: &line)
        line.append(contentsOf: metadata)
        for (key, value) in fields {
            JSONLine.appendField(key, value, to: &line)
        }
        line.append(UInt8(ascii: "}"))
        sink.emit(&line)
    }
}
