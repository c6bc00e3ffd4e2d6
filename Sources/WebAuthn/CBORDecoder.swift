extension CBOR {
    /// Reads exactly one CBOR item from `bytes`, strictly:
    ///
    /// - definite lengths only; tags, floats, `undefined` and other simple
    ///   values are refused;
    /// - map keys must be integers or text strings, and a map may not repeat
    ///   a key (byte-exact comparison);
    /// - text strings must be valid UTF-8;
    /// - nothing may follow the item.
    ///
    /// Non-shortest integer and length encodings are accepted: they are not
    /// ambiguous, only wasteful. The error names a fixed reason and an
    /// offset, never the input.
    public static func decode(_ bytes: some Collection<UInt8>, limits: CBORLimits = CBORLimits()) throws(CBORError) -> CBOR {
        let (item, length) = try decodePrefix(bytes, limits: limits)
        guard length == bytes.count else { throw CBORError(.trailingBytes, at: length) }
        return item
    }

    /// Reads the one CBOR item at the start of `bytes` and returns it with
    /// the number of bytes it took, for formats that embed an item inside
    /// other data (authenticator data). The same rules as ``decode(_:limits:)``,
    /// except that bytes may follow.
    public static func decodePrefix(_ bytes: some Collection<UInt8>, limits: CBORLimits = CBORLimits()) throws(CBORError) -> (item: CBOR, length: Int) {
        guard bytes.count <= limits.maxBytes else { throw CBORError(.inputTooLarge, at: max(0, limits.maxBytes)) }
        var reader = CBORReader(bytes: Array(bytes), limits: limits)
        let item = try reader.readItem()
        return (item, reader.index)
    }
}

/// A recursive-descent reader. Every read of `bytes[i]` is preceded by a
/// check that `i < bytes.count`; every length is checked against the bytes
/// left before anything is allocated for it.
struct CBORReader {
    let bytes: [UInt8]
    let maxDepth: Int
    let maxElements: Int
    let maxStringBytes: Int
    var index = 0
    var depth = 0

    init(bytes: [UInt8], limits: CBORLimits) {
        self.bytes = bytes
        self.maxDepth = min(max(0, limits.maxDepth), CBORLimits.depthCeiling)
        self.maxElements = max(0, limits.maxElements)
        self.maxStringBytes = max(0, limits.maxStringBytes)
    }

    var remaining: Int { bytes.count - index }

    mutating func readItem() throws(CBORError) -> CBOR {
        let start = index
        guard index < bytes.count else { throw CBORError(.unexpectedEnd, at: index) }
        let initial = bytes[index]
        index += 1
        let major = initial >> 5
        let info = initial & 0x1F
        if major == 7 { return try readSimple(info, at: start) }
        if info == 31 { throw CBORError(.indefiniteLength, at: start) }
        let argument = try readArgument(info, at: start)
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(try readString(length: argument, at: start))
        case 3:
            let raw = try readString(length: argument, at: start)
            guard let text = String(validating: raw, as: UTF8.self) else { throw CBORError(.invalidUTF8, at: start) }
            return .text(text)
        case 4: return try readArray(count: argument, at: start)
        case 5: return try readMap(count: argument, at: start)
        default: throw CBORError(.tagNotSupported, at: start)  // major 6
        }
    }

    /// The value that follows the initial byte: in the byte itself (0-23)
    /// or in the next 1, 2, 4 or 8 bytes, big-endian.
    private mutating func readArgument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
        let width: Int
        switch info {
        case 0..<24: return UInt64(info)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        default: throw CBORError(.reservedAdditionalInformation, at: start)
        }
        guard remaining >= width else { throw CBORError(.unexpectedEnd, at: bytes.count) }
        var value: UInt64 = 0
        for offset in 0..<width { value = value << 8 | UInt64(bytes[index + offset]) }
        index += width
        return value
    }

    private mutating func readSimple(_ info: UInt8, at start: Int) throws(CBORError) -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 25, 26, 27: throw CBORError(.floatNotSupported, at: start)
        case 31: throw CBORError(.indefiniteLength, at: start)
        case 28, 29, 30: throw CBORError(.reservedAdditionalInformation, at: start)
        default: throw CBORError(.simpleValueNotSupported, at: start)
        }
    }

    private mutating func readString(length: UInt64, at start: Int) throws(CBORError) -> [UInt8] {
        guard length <= UInt64(maxStringBytes) else { throw CBORError(.stringTooLong, at: start) }
        let count = Int(length)
        guard count <= remaining else { throw CBORError(.unexpectedEnd, at: bytes.count) }
        defer { index += count }
        return Array(bytes[index..<(index + count)])
    }

    private mutating func checkCount(_ count: UInt64, perElement: Int, at start: Int) throws(CBORError) -> Int {
        guard count <= UInt64(maxElements) else { throw CBORError(.tooManyElements, at: start) }
        // Each element takes at least one byte: refuse early what cannot fit.
        guard Int(count) * perElement <= remaining else { throw CBORError(.unexpectedEnd, at: bytes.count) }
        guard depth < maxDepth else { throw CBORError(.tooDeep, at: start) }
        return Int(count)
    }

    private mutating func readArray(count argument: UInt64, at start: Int) throws(CBORError) -> CBOR {
        let count = try checkCount(argument, perElement: 1, at: start)
        depth += 1
        defer { depth -= 1 }
        var elements: [CBOR] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try readItem()) }
        return .array(elements)
    }

    private mutating func readMap(count argument: UInt64, at start: Int) throws(CBORError) -> CBOR {
        let count = try checkCount(argument, perElement: 2, at: start)
        depth += 1
        defer { depth -= 1 }
        var entries: [(key: CBOR, value: CBOR)] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let keyOffset = index
            let key = try readItem()
            switch key {
            case .unsigned, .negative, .text: break
            default: throw CBORError(.invalidMapKey, at: keyOffset)
            }
            guard !entries.contains(where: { $0.key == key }) else { throw CBORError(.duplicateMapKey, at: keyOffset) }
            entries.append((key, try readItem()))
        }
        return .map(entries)
    }
}
