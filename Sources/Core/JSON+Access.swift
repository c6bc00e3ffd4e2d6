extension JSON {
    /// The value of `key` in an object (exact match); `nil` when the key
    /// is absent or this is not an object.
    public subscript(key: String) -> JSON? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` of an array; `nil` when out of range or this
    /// is not an array (never traps).
    public subscript(index: Int) -> JSON? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The value of the one key equal to `key` ignoring ASCII case, for
    /// answers in PascalCase or camelCase alike; `nil` when no key or more
    /// than one key matches (see ``JSONObject/value(forKeyIgnoringCase:)``).
    public func value(forKeyIgnoringCase key: String) -> JSON? {
        guard case .object(let object) = self else { return nil }
        return object.value(forKeyIgnoringCase: key)
    }

    /// The text of a string; `nil` for anything else (numbers included).
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The number when it is exactly an integer that fits `Int`: `3`, and
    /// also `3.0` or `3e0`, since JSON does not tell them apart; `nil` for
    /// `3.5`, `1e300`, booleans and everything else.
    public var intValue: Int? {
        switch self {
        case .int(let number): Int(exactly: number)
        case .double(let number): Int(exactly: number)
        default: nil
        }
    }

    /// Any number as a `Double` (an integer beyond 2^53 is rounded).
    public var doubleValue: Double? {
        switch self {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    /// `true` or `false` only: numbers and strings are not booleans.
    public var boolValue: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The elements of an array.
    public var arrayValue: [JSON]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members of an object, in order.
    public var objectValue: [(String, JSON)]? {
        guard case .object(let object) = self else { return nil }
        return object.pairs.map { ($0.key, $0.value) }
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { true } else { false }
    }
}
