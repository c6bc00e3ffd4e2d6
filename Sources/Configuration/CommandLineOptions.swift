/// What the command line asked for:
///
///     modgud-bff [--config FILE] [--check-config | --print-nginx-locations] [--help]
///
/// `--config FILE` (or `--config=FILE`) reads settings from a JSON file,
/// the environment still winning; `--check-config` validates and exits
/// (0 valid, non-zero with every problem listed); `--print-nginx-locations`
/// validates, prints ``NginxLocations`` and exits; `--help` prints
/// ``helpText`` and exits.
public struct CommandLineOptions: Sendable, Hashable {
    /// `--config FILE`: the JSON file of settings.
    public var configFile: String?
    /// `--check-config`: validate, print the settings and exit.
    public var checkConfig: Bool
    /// `--print-nginx-locations`: validate, print nginx's `location` blocks and exit.
    public var printNginxLocations: Bool
    /// `--help`: print ``helpText`` and exit.
    public var showHelp: Bool

    /// The options as given; none set starts the gateway.
    public init(configFile: String? = nil, checkConfig: Bool = false, printNginxLocations: Bool = false,
                showHelp: Bool = false) {
        self.configFile = configFile
        self.checkConfig = checkConfig
        self.printNginxLocations = printNginxLocations
        self.showHelp = showHelp
    }

    /// Reads `arguments`, without the program name
    /// (`CommandLine.arguments.dropFirst()`).
    public static func parse(_ arguments: some Sequence<String>) -> Result<CommandLineOptions, CommandLineError> {
        var options = CommandLineOptions()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--help", "-h":
                options.showHelp = true
            case "--check-config":
                options.checkConfig = true
            case "--print-nginx-locations":
                options.printNginxLocations = true
            case "--config":
                guard let file = iterator.next(), !file.isEmpty, !file.hasPrefix("--") else {
                    return .failure(CommandLineError("--config needs a file name"))
                }
                guard options.configFile == nil else { return .failure(CommandLineError("--config is given twice")) }
                options.configFile = file
            case _ where argument.hasPrefix("--config="):
                let file = String(argument.dropFirst("--config=".count))
                guard !file.isEmpty else { return .failure(CommandLineError("--config needs a file name")) }
                guard options.configFile == nil else { return .failure(CommandLineError("--config is given twice")) }
                options.configFile = file
            default:
                return .failure(CommandLineError("unknown argument \"\(argument)\" (try --help)"))
            }
        }
        if options.checkConfig && options.printNginxLocations {
            return .failure(CommandLineError("--check-config and --print-nginx-locations print different things; give one"))
        }
        return .success(options)
    }

    /// Usage, then every setting from the table with its default.
    public static var helpText: String {
        var lines = [
            "usage: modgud-bff [--config FILE] [--check-config | --print-nginx-locations] [--help]",
            "",
            "  --config FILE            read settings from a JSON file (environment variables win)",
            "  --check-config           validate the configuration, print it (secrets redacted) and exit",
            "  --print-nginx-locations  validate the configuration, print the nginx location blocks that",
            "                           send /bff/ and every BFF_ROUTES prefix to the gateway, and exit",
            "  --help                   print this text and exit",
            "",
            "Settings (environment variable, JSON key, default):",
        ]
        for setting in SettingDefinition.all {
            lines.append("  \(setting.name)  (\(setting.jsonKey))  default: \(setting.defaultValue.documentation)")
            lines.append("      " + setting.summary.replacingBackticks())
        }
        lines.append("")
        lines.append("Full reference: Docs/configuration.md")
        return lines.joined(separator: "\n")
    }
}

/// A command line that could not be understood.
public struct CommandLineError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension String {
    /// The Markdown backticks of a summary dropped, for the terminal.
    fileprivate func replacingBackticks() -> String { filter { $0 != "`" } }
}
