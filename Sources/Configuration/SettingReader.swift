import Core

/// Gathers each setting's text from the file, then the environment (which
/// wins), falls back to the table's default, and collects every problem.
struct SettingReader {
    enum Origin: Equatable {
        case environment
        case file(key: String, path: String)
        case defaultValue
    }

    private var given: [String: (text: String, origin: Origin)] = [:]
    private(set) var errors: [ConfigError] = []

    /// Reads the JSON file: an object whose keys are the table's JSON keys.
    mutating func loadFile(_ path: String) {
        let bytes: [UInt8]
        switch Host.contents(of: path, limit: JSONValue.limits.maxBytes) {
        case .success(let contents): bytes = contents
        case .failure(let problem):
            errors.append(ConfigError(setting: "--config", message: "the file \(path) \(problem.phrase)"))
            return
        }
        // A UTF-8 byte order mark, as some Windows editors write, is skipped.
        let skipped = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let object: JSONObject
        do {
            guard case .object(let parsed) = try JSON.parse(bytes[skipped...], limits: JSONValue.limits) else {
                errors.append(ConfigError(setting: "--config", message: "the file \(path) is not a JSON object"))
                return
            }
            object = parsed
        } catch {
            let located = JSONError(error.reason, at: error.offset + skipped)
            errors.append(ConfigError(setting: "--config", message: "the file \(path) is not valid JSON (\(located))"))
            return
        }
        for (key, value) in object.pairs.sorted(by: { $0.key < $1.key }) {
            guard let setting = SettingDefinition.forJSONKey(key) else {
                let hint = SettingDefinition.named(key).map(\.jsonKey)
                    ?? Lexical.suggestion(for: key, among: SettingDefinition.all.map(\.jsonKey))
                errors.append(ConfigError(setting: key, message: "is not a known setting (in \(path))"
                    + (hint.map { "; did you mean \($0)?" } ?? "")))
                continue
            }
            switch JSONValue.settingText(value, kind: setting.kind) {
            case .success(let text?):
                given[setting.name] = (text, .file(key: key, path: path))
            case .success(nil):
                continue
            case .failure(let problem):
                errors.append(ConfigError(setting: setting.name, message: "\(problem.message) (\(key) in \(path))"))
            }
        }
    }

    /// Takes every `BFF_` variable; unknown ones are problems. Values are
    /// trimmed of surrounding whitespace; an empty value counts as not set.
    mutating func loadEnvironment(_ environment: [String: String]) {
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix(SettingDefinition.prefix) {
            guard let setting = SettingDefinition.named(name) else {
                let hint = Lexical.suggestion(for: name, among: SettingDefinition.all.map(\.name))
                errors.append(ConfigError(setting: name, message: "is not a known setting"
                    + (hint.map { "; did you mean \($0)?" } ?? "")))
                continue
            }
            let text = Lexical.trimmingWhitespace(value[...], newlines: true)
            if !text.isEmpty { given[setting.name] = (text, .environment) }
        }
    }

    /// Whether the environment or the file set `setting`.
    func isGiven(_ setting: SettingDefinition) -> Bool { given[setting.name] != nil }

    /// The text that applies, and where it came from; nil when unset.
    func text(_ setting: SettingDefinition) -> (text: String, origin: Origin)? {
        if let entry = given[setting.name] { return entry }
        if case .value(let text) = setting.defaultValue { return (text, .defaultValue) }
        return nil
    }

    /// Records a problem with `setting`, saying where its value came from.
    mutating func report(_ setting: SettingDefinition, _ message: String, origin: Origin? = nil) {
        var sentence = message
        switch origin ?? text(setting)?.origin {
        case .file(let key, let path)?: sentence += " (\(key) in \(path))"
        case .defaultValue?: sentence += " (the built-in default)"
        case .environment?, nil: break
        }
        errors.append(ConfigError(setting: setting.name, message: sentence))
    }

    mutating func record(_ more: [ConfigError]) { errors += more }

    /// The parsed value; nil when unset, or when invalid (then a problem is
    /// recorded).
    mutating func value<T>(_ setting: SettingDefinition, _ parse: (String) -> Result<T, ValueProblem>) -> T? {
        guard let (text, origin) = text(setting) else { return nil }
        switch parse(text) {
        case .success(let value):
            return value
        case .failure(let problem):
            report(setting, problem.message, origin: origin)
            return nil
        }
    }

    /// An integer within the range the table gives.
    mutating func integer(_ setting: SettingDefinition) -> Int? {
        guard case .integer(let range) = setting.kind else { preconditionFailure("\(setting.name) is not an integer") }
        return value(setting) { text in
            guard let number = Lexical.unsignedInteger(text[...]), range.contains(number) else {
                return .failure(ValueProblem(Self.quoted(setting, text) + "must be an integer from \(range.lowerBound) to \(range.upperBound)"))
            }
            return .success(number)
        }
    }

    /// `true` or `false` (any case).
    mutating func boolean(_ setting: SettingDefinition) -> Bool? {
        value(setting) { text in
            switch text.lowercased() {
            case "true": .success(true)
            case "false": .success(false)
            default: .failure(ValueProblem(Self.quoted(setting, text) + "must be true or false"))
            }
        }
    }

    /// One of the table's words (any case), lower-cased.
    mutating func choice(_ setting: SettingDefinition) -> String? {
        guard case .choice(let words) = setting.kind else { preconditionFailure("\(setting.name) is not a choice") }
        return value(setting) { text in
            let word = text.lowercased()
            guard words.contains(word) else {
                return .failure(ValueProblem(Self.quoted(setting, text) + "must be one of \(words.joined(separator: ", "))"))
            }
            return .success(word)
        }
    }

    /// `"value" ` when the value may be shown, else nothing.
    private static func quoted(_ setting: SettingDefinition, _ text: String) -> String {
        setting.mayQuoteValue && text.count <= 200 ? "\"\(text)\" " : ""
    }
}
