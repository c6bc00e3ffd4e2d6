/// The configured log level. Configuration does not depend on
/// Observability; the raw values match its `LogLevel`, so
/// `LogLevel(rawValue: config.logLevel.rawValue)` converts.
public enum LogLevelSetting: String, Sendable, Hashable, CaseIterable {
    case debug
    case info
    case warning
    case error
}
