/// Reading a `traceparent` value, strictly.
extension TraceContext {
    /// The trace a `traceparent` value names, or nil unless it is exactly
    /// `00-<32 lowercase hex>-<16 lowercase hex>-<2 lowercase hex>` with
    /// neither id all zeros (version 00 only; anything else starts a new
    /// trace).
    public init?(traceparent bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == Self.fieldLength,
              bytes[0] == UInt8(ascii: "0"), bytes[1] == UInt8(ascii: "0"),
              bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
              let high = Self.hex(bytes, 3, 16), let low = Self.hex(bytes, 19, 16),
              let parent = Self.hex(bytes, 36, 16), let flags = Self.hex(bytes, 53, 2),
              high != 0 || low != 0, parent != 0 else { return nil }
        self.init(high: high, low: low, parent: parent, flags: UInt8(flags))
    }

    /// `init(traceparent:)` over text.
    public init?(traceparent text: String) {
        var text = text
        guard let trace = text.withUTF8({ TraceContext(traceparent: $0) }) else { return nil }
        self = trace
    }

    /// `count` lowercase hex digits at `start` as a number; nil for any
    /// other byte.
    private static func hex(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> UInt64? {
        var value: UInt64 = 0
        for byte in bytes[start..<start + count] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
