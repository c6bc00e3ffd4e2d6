import Core

/// Every problem found in a configuration, collected rather than stopping
/// at the first, so one run shows them all.
public struct ConfigProblems: Error, Sendable, CustomStringConvertible {
    /// One sentence per problem.
    public private(set) var messages: [String] = []

    /// No problems yet.
    public init() {}

    /// Records a problem.
    public mutating func add(_ message: String) { messages.append(message) }

    /// No problem was found.
    public var isEmpty: Bool { messages.isEmpty }

    public var description: String { messages.map { "  - \($0)" }.joined(separator: "\n") }
}

/// Typed reads from a JSON object that record a problem (with the key's
/// path) instead of throwing. A key that is absent reads as nil and is not
/// a problem; a key present with the wrong type is. Keys match without
/// regard to ASCII case.
struct ConfigReader {
    let object: JSON
    let path: String

    init(_ object: JSON, path: String = "") {
        self.object = object
        self.path = path
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func value(_ key: String) -> JSON? { object.value(forKeyIgnoringCase: key) }

    func has(_ key: String) -> Bool { value(key) != nil }

    /// Present and explicitly `null`.
    func isNull(_ key: String) -> Bool { value(key)?.isNull ?? false }

    func string(_ key: String, _ problems: inout ConfigProblems) -> String? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let text = value.stringValue else {
            problems.add("\(name(key)) must be a string")
            return nil
        }
        return text
    }

    func int(_ key: String, _ problems: inout ConfigProblems, min: Int = 0) -> Int? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let number = value.intValue, number >= min else {
            problems.add("\(name(key)) must be an integer ≥ \(min)")
            return nil
        }
        return number
    }

    func double(_ key: String, _ problems: inout ConfigProblems, min: Double = 0) -> Double? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let number = value.doubleValue, number >= min else {
            problems.add("\(name(key)) must be a number ≥ \(min)")
            return nil
        }
        return number
    }

    func bool(_ key: String, _ problems: inout ConfigProblems) -> Bool? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let flag = value.boolValue else {
            problems.add("\(name(key)) must be true or false")
            return nil
        }
        return flag
    }

    func strings(_ key: String, _ problems: inout ConfigProblems) -> [String]? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let items = value.arrayValue, let texts = Optional(items.compactMap(\.stringValue)), texts.count == items.count else {
            problems.add("\(name(key)) must be an array of strings")
            return nil
        }
        return texts
    }

    func object(_ key: String, _ problems: inout ConfigProblems) -> ConfigReader? {
        guard let value = value(key), !value.isNull else { return nil }
        guard case .object = value else {
            problems.add("\(name(key)) must be an object")
            return nil
        }
        return ConfigReader(value, path: name(key))
    }

    func array(_ key: String, _ problems: inout ConfigProblems) -> [JSON]? {
        guard let value = value(key), !value.isNull else { return nil }
        guard let items = value.arrayValue else {
            problems.add("\(name(key)) must be an array")
            return nil
        }
        return items
    }

    /// One of an enum's raw values, compared without case.
    func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ problems: inout ConfigProblems) -> E? where E.RawValue == String {
        guard let text = string(key, &problems) else { return nil }
        if let match = E.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) { return match }
        problems.add("\(name(key)) must be one of \(E.allCases.map(\.rawValue).joined(separator: ", "))")
        return nil
    }

    /// Applies `read` to the value when the key is present.
    func update<T>(_ target: inout T, _ read: T?) {
        if let read { target = read }
    }
}
