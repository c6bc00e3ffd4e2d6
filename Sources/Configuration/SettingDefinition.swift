/// One setting the gateway reads: its environment variable, its JSON key,
/// its default and what it means.
///
/// ``SettingDefinition/all`` is the single table every part reads from: the
/// loader (what is known, defaults, generic checks), `--help`,
/// Docs/configuration.md (a test keeps it in step) and the redacted summary.
/// A new setting is a new row there plus the code that turns its text into a
/// typed field of ``GatewayConfig``.
public struct SettingDefinition: Sendable, Hashable, Identifiable {
    /// The environment variable, `BFF_` followed by upper-case words.
    public let name: String
    /// What the value looks like; drives generic checks and JSON reading.
    public let kind: SettingKind
    /// What applies when neither the environment nor the file sets it.
    public let defaultValue: SettingDefault
    /// One or two sentences for the reference and `--help`.
    public let summary: String
    /// The value is a secret: never printed, never quoted in an error.
    public let isSecret: Bool

    public var id: String { name }

    public init(_ name: String, kind: SettingKind, default defaultValue: SettingDefault,
                summary: String, isSecret: Bool = false) {
        precondition(name.hasPrefix(SettingDefinition.prefix), "setting \(name) must start with BFF_")
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.summary = summary
        self.isSecret = isSecret
    }

    /// Every environment variable the gateway reads starts with this.
    public static let prefix = "BFF_"

    /// The key in the JSON file: the name without `BFF_`, in lowerCamelCase
    /// (`BFF_MAX_HEADER_BYTES` → `maxHeaderBytes`, `BFF_MODGUD_URL` → `modgudUrl`).
    public var jsonKey: String {
        let words = name.dropFirst(Self.prefix.count).split(separator: "_").map { $0.lowercased() }
        guard let first = words.first else { return "" }
        return first + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Whether an error message may quote the value as given. Secrets never;
    /// URLs never either, since they may carry a password.
    var mayQuoteValue: Bool {
        guard !isSecret else { return false }
        switch kind {
        case .url, .jsonArray, .jsonObject: return false
        case .text, .integer, .boolean, .choice, .list: return true
        }
    }
}

/// The shape of a setting's value.
public enum SettingKind: Sendable, Hashable {
    /// Free text, checked by the setting's own parser.
    case text
    /// A URL; may carry a password, so its value is never quoted in errors.
    case url
    /// A decimal integer within the range.
    case integer(ClosedRange<Int>)
    /// `true` or `false`.
    case boolean
    /// One of the listed words.
    case choice([String])
    /// Comma-separated items in the environment; an array of strings (or
    /// one comma-separated string) in the JSON file.
    case list
    /// A JSON array: as JSON text in the environment, a real array in the file.
    case jsonArray
    /// A JSON object: as JSON text in the environment, a real object in the file.
    case jsonObject

    /// How the reference describes the value.
    public var documentation: String {
        switch self {
        case .text: "text"
        case .url: "URL"
        case .integer(let range): "integer \(range.lowerBound)…\(range.upperBound)"
        case .boolean: "true / false"
        case .choice(let words): words.joined(separator: " / ")
        case .list: "comma-separated list (JSON: array)"
        case .jsonArray: "JSON array"
        case .jsonObject: "JSON object"
        }
    }
}

/// What applies when a setting is not given.
public enum SettingDefault: Sendable, Hashable {
    /// This text, read as if it had been given.
    case value(String)
    /// Nothing: the setting is optional and its feature is off until set.
    case unset
    /// Worked out at start-up; the text says how.
    case computed(String)

    /// How the reference shows the default.
    public var documentation: String {
        switch self {
        case .value(let text): text.isEmpty ? "(empty)" : text
        case .unset: "(not set)"
        case .computed(let how): "(\(how))"
        }
    }
}
