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

    /// Calls `body` with the `traceparent` value for a call this hop makes
    /// as span `span`: `00-<trace id>-<span>-<flags>`, 55 bytes, no
    /// allocation.
    public func withTraceparent<R>(span: UInt64, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.fieldLength) { buffer in
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
            return body(UnsafeBufferPointer(buffer))
        }
    }

    /// The `traceparent` value for a call this hop makes as span `span`.
    public func traceparent(span: UInt64) -> String {
        withTraceparent(span: span) { String(decoding: $0, as: UTF8.self) }
    }

    static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        for index in 0..<16 {
            buffer[start + index] = hexDigit(UInt8(truncatingIfNeeded: value >> UInt64((15 - index) * 4)))
        }
    }

    static func hexDigit(_ value: UInt8) -> UInt8 {
        let nibble = value & 0xF
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
