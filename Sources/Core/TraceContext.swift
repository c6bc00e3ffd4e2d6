import Synchronization

/// A request's place in a distributed trace (W3C Trace Context, the
/// `traceparent` field): the 128-bit trace id every hop shares, the id of
/// the span that called the gateway (zero when the gateway started the
/// trace) and the trace flags.
///
/// `current` holds the trace of the request a task serves; the gateway's
/// client of Modgud reads it for every call, and a call outside any
/// request starts a trace of its own (`started()`).
public struct TraceContext: Sendable, Hashable {
    /// The trace id's first 64 bits.
    public let high: UInt64
    /// The trace id's last 64 bits; never zero when `high` is.
    public let low: UInt64
    /// The caller's span id (`traceparent`'s parent id); 0 when the
    /// gateway started the trace.
    public let parent: UInt64
    /// The trace flags (bit 0: sampled).
    public let flags: UInt8

    /// The trace of the request the current task serves, if any.
    @TaskLocal public static var current: TraceContext?

    /// A trace with these ids; a trace id of zero becomes 1 (W3C forbids
    /// an all-zero id).
    public init(high: UInt64, low: UInt64, parent: UInt64 = 0, flags: UInt8 = TraceContext.startedFlags) {
        self.high = high
        self.low = high == 0 && low == 0 ? 1 : low
        self.parent = parent
        self.flags = flags
    }

    /// The flags of a trace the gateway starts: sampled, so a tracer
    /// behind it that follows its parent's choice records the calls.
    public static let startedFlags: UInt8 = 1

    /// Whether the trace came from a `traceparent` field (it has a parent).
    public var isContinued: Bool { parent != 0 }

    /// The trace id: 32 lowercase hex digits.
    public var traceID: String {
        String(unsafeUninitializedCapacity: 32) { buffer in
            Self.writeHex(high, into: buffer, at: 0)
            Self.writeHex(low, into: buffer, at: 16)
            return 32
        }
    }

    /// The length of a `traceparent` value (version 00).
    public static let fieldLength = 55

    /// Writes the `traceparent` value for a call this hop makes as span
    /// `span` into the first `fieldLength` bytes of `buffer`:
    /// `00-<trace id>-<span>-<flags>`. Not generic, so a caller in another
    /// module runs it without looking up type metadata; the caller owns
    /// the buffer (a temporary allocation costs nothing on the heap).
    public func writeTraceparent(span: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= Self.fieldLength)
        buffer[0] = UInt8(ascii: "0")
        buffer[1] = UInt8(ascii: "0")
        buffer[2] = UInt8(ascii: "-")
        Self.writeHex(high, into: buffer, at: 3)
        Self.writeHex(low, into: buffer, at: 19)
        buffer[35] = UInt8(ascii: "-")
        Self.writeHex(span, into: buffer, at: 36)
        buffer[52] = UInt8(ascii: "-")
        buffer[53] = Self.hexDigit(flags >> 4)
        buffer[54] = Self.hexDigit(flags)
    }

    /// The `traceparent` value for a call this hop makes as span `span`.
    public func traceparent(span: UInt64) -> String {
        String(unsafeUninitializedCapacity: Self.fieldLength) { buffer in
            writeTraceparent(span: span, into: buffer)
            return Self.fieldLength
        }
    }

    /// Writes the 16 lowercase hex digits of `value`, most significant
    /// first, at `start`: eight digits a word (`hexWord`), two stores.
    static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        precondition(start >= 0 && start + 16 <= buffer.count)
        let raw = UnsafeMutableRawBufferPointer(buffer)
        raw.storeBytes(of: hexWord(UInt32(truncatingIfNeeded: value >> 32)).bigEndian, toByteOffset: start, as: UInt64.self)
        raw.storeBytes(of: hexWord(UInt32(truncatingIfNeeded: value)).bigEndian, toByteOffset: start + 8, as: UInt64.self)
    }

    /// The eight hex digits of `value` as the bytes of a word, the first
    /// digit in the most significant byte: the nibbles spread one a byte,
    /// then `0`–`9` or `a`–`f` added to each byte at once (no branch, no
    /// table; a digit of 10 or more carries into its byte's bit 4 once 6 is
    /// added, which selects the letters' offset).
    static func hexWord(_ value: UInt32) -> UInt64 {
        var nibbles = UInt64(value)
        nibbles = (nibbles | nibbles << 16) & 0x0000_FFFF_0000_FFFF
        nibbles = (nibbles | nibbles << 8) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles | nibbles << 4) & 0x0F0F_0F0F_0F0F_0F0F
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    }

    static func hexDigit(_ value: UInt8) -> UInt8 {
        let nibble = value & 0xF
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
