import Synchronization

/// Span ids for the calls the gateway makes, and trace ids for traces it
/// starts: a process-wide counter mixed with a random key by a bijection
/// (SplitMix64's finaliser), so ids never repeat within a process, look
/// random, and cost no system call.
public enum SpanIDs {
    private static let key: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next() | 1, generator.next())
    }()
    private static let counter = Atomic<UInt64>(0)

    /// A fresh span id, never zero.
    public static func next() -> UInt64 {
        while true {
            let id = mix(counter.add(1, ordering: .relaxed).newValue &+ key.1)
            if id != 0 { return id }
        }
    }

    /// A fresh trace, for work that serves no request (a background call).
    public static func startedTrace() -> TraceContext {
        TraceContext(high: key.0, low: next())
    }

    /// SplitMix64's finaliser: a bijection on 64 bits that spreads every
    /// input bit over the output.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
