/// Where the audit trail goes (BFF_AUDIT_LOG).
public enum AuditLogDestination: Sendable, Hashable, CustomStringConvertible {
    /// Standard output, among the other log lines.
    case standardOutput
    /// A file, opened for append.
    case file(String)
    /// Nowhere.
    case off

    /// `stdout`, `off`, or an absolute file path.
    static func parse(_ text: String) -> Result<AuditLogDestination, ValueProblem> {
        switch text {
        case "stdout": return .success(.standardOutput)
        case "off": return .success(.off)
        default:
            guard text.hasPrefix("/"), text.count > 1, !text.hasSuffix("/") else {
                return .failure(ValueProblem("expected `stdout`, `off` or an absolute file path"))
            }
            return .success(.file(text))
        }
    }

    /// The setting's value.
    public var description: String {
        switch self {
        case .standardOutput: "stdout"
        case .file(let path): path
        case .off: "off"
        }
    }
}
