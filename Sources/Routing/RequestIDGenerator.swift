import Core
import HTTP
import Synchronization

/// Request ids: a random per-process prefix and a counter, so ids are
/// unique across instances and cheap to make.
public final class RequestIDGenerator: Sendable {
    /// 16 lowercase hex digits and a dash.
    private let prefix: [UInt8]
    /// The random number the prefix spells.
    let random: UInt64
    private let counter = Atomic<UInt64>(0)

    /// The most bytes an id takes: the prefix and 16 hex digits.
    static let maxLength = 33

    /// A generator with a fresh random prefix.
    public init() {
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        self.random = random
        prefix = (0..<16).reversed().map { Self.hexDigit(random >> UInt64($0 * 4)) } + [UInt8(ascii: "-")]
    }

    /// The next id, written out.
    public func next() -> String { nextID().description }

    /// The next id, written out only when asked for: most are only ever
    /// copied into a response's `X-Request-Id` field, which needs no
    /// `String` (an allocation per request).
    public func nextID() -> RequestID {
        RequestID(.numbered(self, counter.add(1, ordering: .relaxed).newValue))
    }

    /// Writes the prefix and `number` in hex into `buffer` (room for
    /// `maxLength` bytes); returns how many bytes it wrote.
    func write(_ number: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let digits = max(1, (UInt64.bitWidth - number.leadingZeroBitCount + 3) / 4)
        let start = buffer.initialize(fromContentsOf: prefix)
        for index in 0..<digits {
            buffer[start + index] = Self.hexDigit(number >> UInt64((digits - 1 - index) * 4))
        }
        return start + digits
    }

    private static func hexDigit(_ value: UInt64) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: value & 0xF)
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
