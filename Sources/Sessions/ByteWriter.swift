/// Builds the compact binary encoding of sealed records: big-endian fixed
/// integers and LEB128-length-prefixed byte strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func uint64(_ value: UInt64) { Self.appendUInt64(value, to: &bytes) }

    /// An optional time: 0 stands for nil (no real time is 0).
    mutating func optionalUInt64(_ value: UInt64?) { uint64(value ?? 0) }

    mutating func varint(_ value: Int) {
        var value = UInt64(value)
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func lengthPrefixed(_ data: some Collection<UInt8>) {
        varint(data.count)
        bytes.append(contentsOf: data)
    }

    mutating func string(_ value: String) { lengthPrefixed(value.utf8) }

    /// A presence flag (0/1), then the string when present.
    mutating func optionalString(_ value: String?) {
        if let value {
            byte(1)
            string(value)
        } else {
            byte(0)
        }
    }

    static func appendUInt64(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
