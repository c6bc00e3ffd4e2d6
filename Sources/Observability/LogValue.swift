import Core

/// The value of one field in a log line.
///
/// A ``Secret`` is carried as `.secret` and always written as `"<redacted>"`;
/// its contents never reach the line. Literals work directly:
/// `logger.info("x", ["status": 200, "route": "/api/", "cached": true])`.
public enum LogValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case secret(Secret)
}

extension LogValue: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension LogValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension LogValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension LogValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension LogValue: CustomStringConvertible {
    /// The value as text; a secret prints as `<redacted>`.
    public var description: String {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        case .secret(let value): value.description
        }
    }
}
