import Core

/// Reading the values of the JSON config file.
enum JSONValue {
    /// What the file and BFF_ROUTES may hold: ``JSONLimits``' defaults
    /// (1 MiB, nesting 64), but strings as long as the whole file.
    static let limits = JSONLimits(maxStringBytes: JSONLimits().maxBytes)

    /// The file's value of a setting as the text the environment would
    /// hold, or the reason it cannot be. `nil` (JSON null) is "not set".
    /// A JSON `true` is never a number, nor a number a boolean.
    static func settingText(_ value: JSON, kind: SettingKind) -> Result<String?, ValueProblem> {
        if value.isNull { return .success(nil) }
        if let text = value.stringValue { return .success(text) }
        switch kind {
        case .boolean:
            guard let flag = value.boolValue else { return .failure(ValueProblem("must be true or false")) }
            return .success(flag ? "true" : "false")
        case .integer:
            guard let number = value.intValue else { return .failure(ValueProblem("must be an integer")) }
            return .success(String(number))
        case .list:
            guard let items = value.arrayValue else { return .failure(ValueProblem("must be an array of strings")) }
            let strings = items.compactMap(\.stringValue)
            guard strings.count == items.count else { return .failure(ValueProblem("must be an array of strings")) }
            guard !strings.contains(where: { $0.contains(",") }) else {
                return .failure(ValueProblem("an array item must not contain a comma"))
            }
            return .success(strings.joined(separator: ","))
        case .jsonArray:
            guard value.arrayValue != nil else { return .failure(ValueProblem("must be an array")) }
            return .success(value.serializedString)
        case .jsonObject:
            guard value.objectValue != nil else { return .failure(ValueProblem("must be an object")) }
            return .success(value.serializedString)
        case .text, .url, .choice:
            return .failure(ValueProblem("must be a string"))
        }
    }
}
