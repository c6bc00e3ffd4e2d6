/// Reads what `ByteWriter` wrote; every read returns nil past the end or
/// on a malformed field, so a decoder never traps on foreign bytes.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint64() -> UInt64? {
        guard bytes.count - offset >= 8 else { return nil }
        var value: UInt64 = 0
        for index in offset..<offset + 8 { value = value << 8 | UInt64(bytes[index]) }
        offset += 8
        return value
    }

    /// A time written by `optionalUInt64`: `.some(nil)` for 0.
    mutating func optionalUInt64() -> UInt64?? {
        guard let value = uint64() else { return nil }
        return .some(value == 0 ? nil : value)
    }

    mutating func varint() -> Int? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 35, by: 7) {  // at most 5 bytes: lengths stay below 2³²
            guard let next = byte() else { return nil }
            value |= UInt64(next & 0x7f) << UInt64(shift)
            if next & 0x80 == 0 { return Int(value) }
        }
        return nil
    }

    mutating func lengthPrefixed() -> [UInt8]? {
        guard let count = varint(), count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func string() -> String? {
        guard let raw = lengthPrefixed() else { return nil }
        return String(validating: raw, as: UTF8.self)
    }

    /// `.some(nil)` for an absent value, nil for a malformed one.
    mutating func optionalString() -> String?? {
        switch byte() {
        case 0: return .some(nil)
        case 1: return string().map { .some($0) }
        default: return nil
        }
    }
}
