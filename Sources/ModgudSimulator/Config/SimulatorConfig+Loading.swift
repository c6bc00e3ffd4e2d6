import Core
import System
#if canImport(Glibc)
import Glibc
#endif

/// What the command line asked for besides the configuration itself.
public struct SimulatorCommand: Sendable {
    /// The configuration built from defaults, file, environment and flags.
    public var config: SimulatorConfig
    /// `--help` was given.
    public var showHelp = false
    /// `--print-config` was given.
    public var printConfig = false
}

extension SimulatorConfig {
    /// Builds the configuration: defaults, then the JSON file
    /// (`--config`/`SIM_CONFIG`), then `SIM_*` variables, then flags.
    /// Every problem is reported at once.
    public static func load(arguments: [String], environment: [String: String]) -> Result<SimulatorCommand, ConfigProblems> {
        var problems = ConfigProblems()
        var command = SimulatorCommand(config: SimulatorConfig())
        var flagPatch = JSONObject()
        var configPath = environment["SIM_CONFIG"]
        var index = 0
        func nextValue(_ flag: String) -> String? {
            index += 1
            guard index < arguments.count else {
                problems.add("\(flag) needs a value")
                return nil
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            var flag = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                flag = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func value() -> String? { inline ?? nextValue(flag) }
            switch flag {
            case "-h", "--help": command.showHelp = true
            case "--print-config": command.printConfig = true
            case "--no-dev": flagPatch["dev"] = false
            case "--dev": flagPatch["dev"] = true
            case "--config": configPath = value()
            case "--pascal-case-429": flagPatch["pascalCase429"] = true
            case "--rate-limit-headers": flagPatch["rateLimitHeaders"] = true
            case "--older-server-mfa": flagPatch["olderServerMfa"] = true
            case "--recent-sign-in": flagPatch["recentSignIn"] = true
            default:
                guard let name = Self.valueFlags[flag] else {
                    problems.add("unknown option \(argument)")
                    index += 1
                    continue
                }
                if let text = value() { Self.put(name, text, into: &flagPatch, &problems, source: flag) }
            }
            index += 1
        }
        if let configPath {
            switch Self.readFile(configPath) {
            case .success(let bytes):
                do {
                    let json = try JSON.parse(bytes)
                    for message in command.config.apply(json).messages { problems.add("\(configPath): \(message)") }
                } catch {
                    problems.add("\(configPath): not valid JSON (\(error))")
                }
            case .failure(let reason):
                problems.add("\(configPath): \(reason)")
            }
        }
        var environmentPatch = JSONObject()
        for (variable, name) in Self.environmentVariables.sorted(by: { $0.key < $1.key }) {
            if let text = environment[variable] { Self.put(name, text, into: &environmentPatch, &problems, source: variable) }
        }
        for patch in [environmentPatch, flagPatch] {
            let (special, rest) = Self.splitSpecial(patch)
            problems.append(command.config.apply(.object(rest)))
            command.config.applySpecial(special, &problems)
        }
        // An explicit back-channel URI wins over the one the origins imply,
        // whichever source named them.
        if let uri = flagPatch["+bffBackchannelUri"] ?? environmentPatch["+bffBackchannelUri"] {
            command.config.applySpecial(["bffBackchannelUri": uri], &problems)
        }
        problems.append(command.config.consistencyProblems())
        return problems.isEmpty ? .success(command) : .failure(problems)
    }

    /// The `--help` text.
    public static let helpText = """
    usage: modgud-sim [options]

    A Modgud identity-server simulator for local runs, demos, tests and load
    tests. NEVER for production. See Docs/simulator.md. The sign-in page's
    passwords (realm.defaultPassword, users[].password), PAR (realm.par) and
    back-channel logout (clients[].backchannelLogoutUri, backchannelRetrySeconds)
    are set in the --config file or through POST /dev/config.

      --listen HOST:PORT          listen address (SIM_LISTEN, default 127.0.0.1:5080)
      --public-url URL            issuer and base URL (SIM_PUBLIC_URL, default http://<listen>)
      --magic-link-page URL       the page mailed magic links open (SIM_MAGIC_LINK_PAGE, default <issuer>/magic-login)
      --config FILE               JSON configuration file (SIM_CONFIG)
      --loops N                   event loops (SIM_LOOPS, default 2)
      --no-dev                    switch the /dev/* endpoints off (SIM_DEV=false)
      --log-level LEVEL           debug|info|warning|error (SIM_LOG_LEVEL)
      --jitter-ms N               fixed anti-enumeration delay, 0 for tests and load (SIM_JITTER_MS)
      --access-token-lifetime S   access-token lifetime in seconds (SIM_ACCESS_TOKEN_LIFETIME)
      --refresh-leeway S          refresh-token reuse leeway in seconds (SIM_REFRESH_LEEWAY, default 0)
      --rate-limits MODE          enforce|log-only|off (SIM_RATE_LIMITS)
      --native-grants on|off      the realm's native-grants switch (SIM_NATIVE_GRANTS)
      --bff-secret SECRET         the bff client's secret (SIM_BFF_SECRET)
      --bff-origins LIST          comma-separated front-end origins added to bff: passkey origins, and
                                  <origin>/bff/callback, <origin>/ as redirect URIs; the first one's
                                  <origin>/bff/backchannel-logout receives back-channel logout (SIM_BFF_ORIGINS)
      --bff-backchannel-uri URI   where bff receives back-channel logout (SIM_BFF_BACKCHANNEL_URI)
      --pascal-case-429           PascalCase keys in 429 bodies (SIM_PASCAL_CASE_429=true)
      --rate-limit-headers        RateLimit-* headers on 429s (SIM_RATE_LIMIT_HEADERS=true)
      --older-server-mfa          answer a missing TOTP like an older server (SIM_OLDER_SERVER_MFA=true)
      --recent-sign-in            passkey changes need a recent sign-in (SIM_RECENT_SIGN_IN=true)
      --device-code-lifetime S    device and user code lifetime in seconds (SIM_DEVICE_CODE_LIFETIME, default 600)
      --device-code-interval S    device code polling interval in seconds (SIM_DEVICE_CODE_INTERVAL, default 5)
      --print-config              print the resulting configuration and exit
      -h, --help                  this text
    """

    /// Flags that take a value, by the patch name they set.
    private static let valueFlags: [String: String] = [
        "--listen": "listen", "--public-url": "publicUrl", "--magic-link-page": "magicLinkPage", "--loops": "loops",
        "--log-level": "logLevel",
        "--jitter-ms": "jitterMs", "--access-token-lifetime": "accessTokenLifetimeSeconds",
        "--refresh-leeway": "refreshReuseLeewaySeconds", "--rate-limits": "rateLimitMode",
        "--native-grants": "nativeGrants", "--bff-secret": "+bffSecret", "--bff-origins": "+bffOrigins",
        "--bff-backchannel-uri": "+bffBackchannelUri", "--device-code-lifetime": "deviceCodeLifetimeSeconds",
        "--device-code-interval": "deviceCodeIntervalSeconds",
    ]

    private static let environmentVariables: [String: String] = [
        "SIM_LISTEN": "listen", "SIM_PUBLIC_URL": "publicUrl", "SIM_MAGIC_LINK_PAGE": "magicLinkPage", "SIM_LOOPS": "loops",
        "SIM_DEV": "dev",
        "SIM_LOG_LEVEL": "logLevel", "SIM_LOG_MAIL": "logMail", "SIM_JITTER_MS": "jitterMs",
        "SIM_ACCESS_TOKEN_LIFETIME": "accessTokenLifetimeSeconds", "SIM_REFRESH_LEEWAY": "refreshReuseLeewaySeconds",
        "SIM_RATE_LIMITS": "rateLimitMode", "SIM_NATIVE_GRANTS": "nativeGrants",
        "SIM_PASCAL_CASE_429": "pascalCase429", "SIM_RATE_LIMIT_HEADERS": "rateLimitHeaders",
        "SIM_OLDER_SERVER_MFA": "olderServerMfa", "SIM_RECENT_SIGN_IN": "recentSignIn",
        "SIM_BFF_SECRET": "+bffSecret", "SIM_BFF_ORIGINS": "+bffOrigins",
        "SIM_BFF_BACKCHANNEL_URI": "+bffBackchannelUri", "SIM_DEVICE_CODE_LIFETIME": "deviceCodeLifetimeSeconds",
        "SIM_DEVICE_CODE_INTERVAL": "deviceCodeIntervalSeconds",
    ]

    private static let integerKeys: Set = ["loops", "jitterMs", "accessTokenLifetimeSeconds", "refreshReuseLeewaySeconds",
                                           "deviceCodeLifetimeSeconds", "deviceCodeIntervalSeconds"]
    private static let booleanKeys: Set = ["dev", "logMail", "nativeGrants", "pascalCase429", "rateLimitHeaders",
                                           "olderServerMfa", "recentSignIn"]

    /// Puts a textual setting into a patch with the JSON type its key needs.
    private static func put(_ name: String, _ text: String, into patch: inout JSONObject, _ problems: inout ConfigProblems,
                            source: String) {
        if integerKeys.contains(name) {
            if let number = Int64(text) { patch[name] = .int(number) } else { problems.add("\(source) must be an integer") }
        } else if booleanKeys.contains(name) {
            switch text.lowercased() {
            case "1", "true", "yes", "on": patch[name] = true
            case "0", "false", "no", "off": patch[name] = false
            default: problems.add("\(source) must be true or false")
            }
        } else {
            patch[name] = .string(text)
        }
    }

    /// Separates the `+name` settings that are not plain config keys.
    private static func splitSpecial(_ patch: JSONObject) -> (JSONObject, JSONObject) {
        var special = JSONObject(), rest = JSONObject()
        for (key, value) in patch {
            if key.hasPrefix("+") { special[String(key.dropFirst())] = value } else { rest[key] = value }
        }
        return (special, rest)
    }

    private mutating func applySpecial(_ special: JSONObject, _ problems: inout ConfigProblems) {
        guard let position = clients.firstIndex(where: { $0.id == "bff" }) else {
            if !special.isEmpty { problems.add("the bff client is not configured") }
            return
        }
        if let secret = special["bffSecret"]?.stringValue { clients[position].secret = secret }
        if let list = special["bffOrigins"]?.stringValue {
            let origins = list.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
            for origin in origins {
                func add(_ value: String, to list: inout [String]) { if !list.contains(value) { list.append(value) } }
                add(origin, to: &clients[position].origins)
                add(origin + "/bff/callback", to: &clients[position].redirectUris)
                add(origin + "/", to: &clients[position].postLogoutRedirectUris)
            }
            if let first = origins.first { clients[position].backchannelLogoutUri = first + "/bff/backchannel-logout" }
        }
        if let uri = special["bffBackchannelUri"]?.stringValue { clients[position].backchannelLogoutUri = uri }
    }

    /// The whole file, or why not (at most 4 MiB).
    static func readFile(_ path: String) -> Result<[UInt8], FileProblem> {
        WholeFile.read(atPath: path, limit: 4 << 20).mapError { problem in
            switch problem {
            case .missing: FileProblem("does not exist")
            case .unreadable(let code): FileProblem("cannot read (errno \(code))")
            case .tooLarge: FileProblem("larger than 4 MiB")
            }
        }
    }
}

/// Why a file could not be read.
struct FileProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ConfigProblems {
    mutating func append(_ other: ConfigProblems) {
        for message in other.messages { add(message) }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
