/// A JSON value (RFC 8259), read strictly and written compactly, with no
/// Foundation behind it.
///
/// - **Numbers** keep the difference JSON text makes: a literal with no
///   fraction and no exponent that fits 64 bits is ``int(_:)`` and
///   round-trips exactly; every other number is ``double(_:)``. An integer
///   literal too large for `Int64` becomes a double (and loses digits).
///   `-0` is the integer `0`.
/// - **Objects** keep their keys in the order read or written
///   (``JSONObject``), and a key occurs at most once: the parser refuses a
///   document that repeats a key (see `JSON.parse`).
/// - **Doubles** that are not finite cannot come out of the parser; one
///   built in code (`.double(.nan)`) is written as `null`, since JSON has
///   no NaN or infinity.
/// - **Equality** is structural: objects compare pair by pair in order, and
///   `.int(1)` differs from `.double(1)`; compare ``intValue`` or
///   ``doubleValue`` when only the number matters.
/// - **Printing** never shows content: `description`, interpolation and
///   `dump` give only the shape (`JSON object (3 keys)`), since documents
///   carry tokens and personal data. ``serializedString`` is the text.
///
/// Literals build values in code, objects in the order written:
/// `JSON.object(["error": "invalid_request", "retry": false]).serialized`.
public enum JSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`; never a number.
    case bool(Bool)
    /// An integer literal that fits 64 bits.
    case int(Int64)
    /// A number with a fraction or exponent, or an integer beyond `Int64`.
    case double(Double)
    /// A string, already unescaped.
    case string(String)
    /// An array, in order.
    case array([JSON])
    /// An object: keys in order, each at most once.
    case object(JSONObject)
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }

    /// An object with the keys in the order written; a repeated key is a
    /// programming error and traps, as it does for `Dictionary`.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(JSONObject(literalPairs: elements))
    }
}

extension JSON: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The shape only, never the content: `JSON string (12 bytes)`,
    /// `JSON object (3 keys)`, `JSON int`.
    public var description: String {
        switch self {
        case .null: "JSON null"
        case .bool: "JSON bool"
        case .int: "JSON int"
        case .double: "JSON double"
        case .string(let text): "JSON string (\(text.utf8.count) bytes)"
        case .array(let elements): "JSON array (\(elements.count) element\(elements.count == 1 ? "" : "s"))"
        case .object(let object): "JSON object (\(object.count) key\(object.count == 1 ? "" : "s"))"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}
