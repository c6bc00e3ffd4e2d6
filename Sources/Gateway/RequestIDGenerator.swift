import Synchronization

/// Request ids: a random per-process prefix and a counter, so ids are
/// unique across instances and cheap to make.
public final class RequestIDGenerator: Sendable {
    /// 16 lowercase hex digits and a dash.
    private let prefix: [UInt8]
    private let counter = Atomic<UInt64>(0)

    public init() {
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        prefix = (0..<16).reversed().map { Self.hexDigit(random >> UInt64($0 * 4)) } + [UInt8(ascii: "-")]
    }

    /// The prefix and the counter in hex, written straight into the string.
    public func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        let digits = max(1, (UInt64.bitWidth - n.leadingZeroBitCount + 3) / 4)
        return String(unsafeUninitializedCapacity: prefix.count + digits) { buffer in
            let start = buffer.initialize(fromContentsOf: prefix)
            for index in 0..<digits {
                buffer[start + index] = Self.hexDigit(n >> UInt64((digits - 1 - index) * 4))
            }
            return start + digits
        }
    }

    private static func hexDigit(_ value: UInt64) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: value & 0xF)
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
