/// A CBOR data item (RFC 8949), limited to what WebAuthn and COSE use:
/// integers, byte and text strings, arrays, maps with integer or text keys,
/// `true`, `false` and `null`.
///
/// - **Integers** keep CBOR's two major types: ``unsigned(_:)`` holds
///   0…2⁶⁴−1 and ``negative(_:)`` holds `n` for the value −1−n, so the full
///   range round-trips. ``int(_:)`` builds either from an `Int`.
/// - **Maps** keep their entries in the order read or written; the decoder
///   refuses a map that repeats a key, and the encoder writes the order given
///   (build maps in CTAP2 canonical order when that matters).
/// - **Printing** never shows content, only the shape, since CBOR here
///   carries keys, signatures and credential ids.
public enum CBOR: Sendable, Equatable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer −1 − n.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBOR])
    /// Major type 5: a map, entries in order.
    case map([(key: CBOR, value: CBOR)])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null

    /// An integer item for `value`: ``unsigned(_:)`` when it is not
    /// negative, ``negative(_:)`` otherwise.
    public static func int(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// Structural equality; maps compare entry by entry in order.
    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case let (.unsigned(a), .unsigned(b)): a == b
        case let (.negative(a), .negative(b)): a == b
        case let (.bytes(a), .bytes(b)): a == b
        case let (.text(a), .text(b)): Array(a.utf8) == Array(b.utf8)
        case let (.array(a), .array(b)): a == b
        case let (.map(a), .map(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null): true
        default: false
        }
    }
}

extension CBOR {
    /// The integer when it fits `Int`, for either integer major type.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): Int(exactly: n)
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    /// The bytes of a byte string.
    public var bytesValue: [UInt8]? {
        guard case .bytes(let bytes) = self else { return nil }
        return bytes
    }

    /// The text of a text string.
    public var textValue: String? {
        guard case .text(let text) = self else { return nil }
        return text
    }

    /// The elements of an array.
    public var arrayValue: [CBOR]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The entries of a map, in order.
    public var mapValue: [(key: CBOR, value: CBOR)]? {
        guard case .map(let entries) = self else { return nil }
        return entries
    }

    /// The value stored under `key` in a map; `nil` when absent or when this
    /// is not a map. Text keys match byte for byte.
    public subscript(key: CBOR) -> CBOR? {
        mapValue?.first { $0.key == key }?.value
    }

    /// The value under the integer key `key` (COSE labels).
    public subscript(label: Int) -> CBOR? { self[.int(label)] }

    /// The value under the text key `key` (attestation objects).
    public subscript(text key: String) -> CBOR? { self[.text(key)] }
}

extension CBOR: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The shape only: `CBOR byte string (32 bytes)`, `CBOR map (5 entries)`.
    public var description: String {
        switch self {
        case .unsigned, .negative: "CBOR integer"
        case .bytes(let bytes): "CBOR byte string (\(bytes.count) bytes)"
        case .text(let text): "CBOR text string (\(text.utf8.count) bytes)"
        case .array(let elements): "CBOR array (\(elements.count) elements)"
        case .map(let entries): "CBOR map (\(entries.count) entries)"
        case .bool: "CBOR bool"
        case .null: "CBOR null"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
    /// No children, so `dump` shows no content either.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}
