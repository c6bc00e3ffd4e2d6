extension CBOR {
    /// The item in CBOR: every integer and length in its shortest form,
    /// definite lengths, map entries in the order stored. An item built
    /// with its map keys in CTAP2 canonical order therefore encodes as
    /// CTAP2 canonical CBOR.
    public var encoded: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    /// Appends ``encoded`` to `buffer`.
    public func encode(into buffer: inout [UInt8]) {
        switch self {
        case .unsigned(let value):
            Self.appendHead(major: 0, value, to: &buffer)
        case .negative(let value):
            Self.appendHead(major: 1, value, to: &buffer)
        case .bytes(let bytes):
            Self.appendHead(major: 2, UInt64(bytes.count), to: &buffer)
            buffer.append(contentsOf: bytes)
        case .text(let text):
            Self.appendHead(major: 3, UInt64(text.utf8.count), to: &buffer)
            buffer.append(contentsOf: text.utf8)
        case .array(let elements):
            Self.appendHead(major: 4, UInt64(elements.count), to: &buffer)
            for element in elements { element.encode(into: &buffer) }
        case .map(let entries):
            Self.appendHead(major: 5, UInt64(entries.count), to: &buffer)
            for entry in entries {
                entry.key.encode(into: &buffer)
                entry.value.encode(into: &buffer)
            }
        case .bool(let flag):
            buffer.append(flag ? 0xF5 : 0xF4)
        case .null:
            buffer.append(0xF6)
        }
    }

    /// The initial byte and argument in the shortest form.
    private static func appendHead(major: UInt8, _ value: UInt64, to buffer: inout [UInt8]) {
        let type = major << 5
        switch value {
        case 0..<24:
            buffer.append(type | UInt8(value))
        case 24...0xFF:
            buffer.append(contentsOf: [type | 24, UInt8(value)])
        case 0x100...0xFFFF:
            buffer.append(type | 25)
            appendBigEndian(value, width: 2, to: &buffer)
        case 0x1_0000...0xFFFF_FFFF:
            buffer.append(type | 26)
            appendBigEndian(value, width: 4, to: &buffer)
        default:
            buffer.append(type | 27)
            appendBigEndian(value, width: 8, to: &buffer)
        }
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, to buffer: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
