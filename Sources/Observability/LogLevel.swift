/// How important a log line is. Ordered: `debug < info < warning < error`.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    case debug
    case info
    case warning
    case error

    /// Reads a level name, ignoring case; `warn` is accepted for `warning`.
    public init?(parsing text: some StringProtocol) {
        switch text.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    /// The position in the order, lowest first.
    @inlinable
    public var severity: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }

    @inlinable
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.severity < rhs.severity }

    /// The name written in the `level` field of a log line.
    public var description: String { rawValue }
}
