/// One problem with the configuration: which setting, and a sentence.
///
/// The sentence never contains a secret or a URL as given (URLs may carry
/// passwords); other values may be quoted to help find the typo.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The environment name (`BFF_LISTEN`), a part of one
    /// (`BFF_ROUTES[1].prefix`), an unknown name as found, or `--config`.
    public let setting: String
    public let message: String

    public init(setting: String, message: String) {
        self.setting = setting
        self.message = message
    }

    /// `BFF_LISTEN: the port must be a number from 0 to 65535`.
    public var description: String { "\(setting): \(message)" }
}

/// Every problem found in one load: those of the file and of unknown names
/// first, then by the order of the settings table, then the cross-checks.
public struct ConfigErrors: Error, Sendable, Hashable, CustomStringConvertible {
    public let errors: [ConfigError]

    public init(_ errors: [ConfigError]) { self.errors = errors }

    /// One problem per line, for standard error before exiting non-zero.
    public var description: String {
        let heading = errors.count == 1 ? "1 configuration problem:" : "\(errors.count) configuration problems:"
        return ([heading] + errors.map { "  \($0)" }).joined(separator: "\n")
    }
}
