extension JSON {
    /// Reads one JSON document (RFC 8259), strictly:
    ///
    /// - any value may stand at the top; only space, tab, LF and CR may
    ///   surround it, and nothing else may follow it (no byte order mark);
    /// - no comments, trailing commas, single quotes, unquoted keys, `NaN`,
    ///   `Infinity`, `+1`, `.5`, `1.`, leading zeros (`01`), or numbers
    ///   beyond the range of `Double`;
    /// - strings must be valid UTF-8 (no overlong forms, no encoded
    ///   surrogates), with control characters escaped; `\u` escapes must
    ///   pair surrogates correctly: a lone one is refused, not replaced;
    /// - **an object may not repeat a key.** RFC 8259 leaves duplicates to
    ///   the reader, and parsers disagree (first wins, last wins, both):
    ///   a document that one component reads one way and another the other
    ///   way is a classic smuggling trick, so the document is refused.
    ///   Keys count as equal when Swift's `==` says so (see ``JSONObject``).
    ///
    /// The `limits` bound size, nesting and string length. The error gives
    /// a fixed reason and a byte offset, never the input.
    public static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits = JSONLimits()) throws(JSONError) -> JSON {
        let count = bytes.count
        guard count <= limits.maxBytes else { throw JSONError(.documentTooLarge, at: max(0, limits.maxBytes)) }
        let contiguous: Result<JSON, JSONError>? = bytes.withContiguousStorageIfAvailable { buffer in
            parseBuffer(buffer, limits: limits)
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { parseBuffer($0, limits: limits) }.get()
    }

    /// Reads one JSON document from text; see the byte form for the rules.
    public static func parse(_ text: String, limits: JSONLimits = JSONLimits()) throws(JSONError) -> JSON {
        try parse(text.utf8, limits: limits)
    }

    private static func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits) -> Result<JSON, JSONError> {
        var parser = JSONParser(bytes: buffer, limits: limits)
        return Result { () throws(JSONError) in try parser.parseDocument() }
    }
}

/// A recursive-descent reader over bytes. Every read of `bytes[i]` is
/// preceded by a check that `i < bytes.count`.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let maxStringBytes: Int
    var index = 0
    var depth = 0
    /// Reused for strings with escapes.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.maxDepth = min(max(0, limits.maxDepth), JSONLimits.depthCeiling)
        self.maxStringBytes = max(0, limits.maxStringBytes)
    }

    mutating func parseDocument() throws(JSONError) -> JSON {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw JSONError(.trailingCharacters, at: index) }
        return value
    }

    mutating func parseValue() throws(JSONError) -> JSON {
        guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw JSONError(.expectedValue, at: index)
        }
    }

    private mutating func parseArray() throws(JSONError) -> JSON {
        try enterContainer()
        index += 1
        var elements: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw JSONError(.trailingComma, at: index) }
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw JSONError(.expectedCommaOrBracket, at: index)
            }
        }
    }

    /// Objects this size or smaller are checked for repeated keys by a
    /// scan; larger ones through a set.
    private static let scanLimit = 16

    private mutating func parseObject() throws(JSONError) -> JSON {
        try enterContainer()
        index += 1
        var pairs: [(key: String, value: JSON)] = []
        var seen: Set<String>?
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject(uniquePairs: pairs))
        }
        while true {
            guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
            guard bytes[index] == UInt8(ascii: "\"") else {
                let afterComma = !pairs.isEmpty && bytes[index] == UInt8(ascii: "}")
                throw JSONError(afterComma ? .trailingComma : .expectedKey, at: index)
            }
            let keyOffset = index
            let key = try parseString()
            if seen != nil {
                guard seen!.insert(key).inserted else { throw JSONError(.duplicateKey, at: keyOffset) }
            } else {
                guard !pairs.contains(where: { $0.key == key }) else { throw JSONError(.duplicateKey, at: keyOffset) }
                if pairs.count == Self.scanLimit { seen = Set(pairs.map(\.key) + [key]) }
            }
            skipWhitespace()
            guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
            guard bytes[index] == UInt8(ascii: ":") else { throw JSONError(.expectedColon, at: index) }
            index += 1
            skipWhitespace()
            pairs.append((key, try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(JSONObject(uniquePairs: pairs))
            default:
                throw JSONError(.expectedCommaOrBrace, at: index)
            }
        }
    }

    private mutating func enterContainer() throws(JSONError) {
        guard depth < maxDepth else { throw JSONError(.tooDeep, at: index) }
        depth += 1
    }

    /// `true`, `false` or `null`, exactly.
    private mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
        let start = index
        for offset in 0..<word.utf8CodeUnitCount {
            guard start + offset < bytes.count else { throw JSONError(.unexpectedEnd, at: start + offset) }
            guard bytes[start + offset] == word.utf8Start[offset] else { throw JSONError(.invalidLiteral, at: start) }
        }
        index = start + word.utf8CodeUnitCount
    }

    /// Space, horizontal tab, line feed, carriage return: nothing else.
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
