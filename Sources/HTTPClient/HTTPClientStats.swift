import Synchronization

/// Counters a client keeps for its metrics; read at scrape time.
public final class HTTPClientStats: Sendable {
    /// Requests handed to libcurl (`execute` and `stream`).
    public let requests = Atomic<Int>(0)
    /// Transfers running now.
    public let activeTransfers = Atomic<Int>(0)
    /// Transfers that ended in an error (cancellations included).
    public let failures = Atomic<Int>(0)
    /// Body bytes held now between streams and their producers or consumers.
    public let streamBufferedBytes = Atomic<Int>(0)
    /// The most `streamBufferedBytes` has ever been.
    public let streamBufferedBytesPeak = Atomic<Int>(0)

    /// Zeroed counters.
    public init() {}

    func buffered(_ delta: Int) {
        let now = streamBufferedBytes.add(delta, ordering: .relaxed).newValue
        guard delta > 0 else { return }
        var peak = streamBufferedBytesPeak.load(ordering: .relaxed)
        while now > peak {
            let (exchanged, original) = streamBufferedBytesPeak.compareExchange(
                expected: peak, desired: now, ordering: .relaxed)
            if exchanged { break }
            peak = original
        }
    }
}
