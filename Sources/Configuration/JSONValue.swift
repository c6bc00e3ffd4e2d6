import Foundation

/// Reading values that came out of `JSONSerialization`.
enum JSONValue {
    /// Whether `value` is a JSON `true`/`false` (not a number 0 or 1).
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    /// A JSON number with no fraction that fits `Int`; nil for booleans.
    static func integer(_ value: Any) -> Int? {
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        return Int(exactly: number.doubleValue)
    }

    /// The file's value of a setting as the text the environment would
    /// hold, or the reason it cannot be. `nil` (JSON null) is "not set".
    static func settingText(_ value: Any, kind: SettingKind) -> Result<String?, ValueProblem> {
        if value is NSNull { return .success(nil) }
        if let text = value as? String { return .success(text) }
        switch kind {
        case .boolean:
            guard isBoolean(value), let flag = value as? Bool else { return .failure(ValueProblem("must be true or false")) }
            return .success(flag ? "true" : "false")
        case .integer:
            guard let number = integer(value) else { return .failure(ValueProblem("must be an integer")) }
            return .success(String(number))
        case .list:
            guard let items = value as? [Any], let strings = items as? [String] else {
                return .failure(ValueProblem("must be an array of strings"))
            }
            guard !strings.contains(where: { $0.contains(",") }) else {
                return .failure(ValueProblem("an array item must not contain a comma"))
            }
            return .success(strings.joined(separator: ","))
        case .jsonArray:
            guard value is [Any], let data = try? JSONSerialization.data(withJSONObject: value) else {
                return .failure(ValueProblem("must be an array"))
            }
            return .success(String(decoding: data, as: UTF8.self))
        case .text, .url, .choice:
            return .failure(ValueProblem("must be a string"))
        }
    }
}
