import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Catches SIGTERM and SIGINT from the moment it is made: their default
/// actions are replaced by dispatch sources, so the process drains instead
/// of dying. Make it before starting anything, then `wait`.
public struct SignalWaiter {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let queue = DispatchQueue(label: "signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        self.stream = stream
    }

    /// The first signal that arrives.
    public func wait() async -> Int32 {
        var received: Int32 = 0
        for await number in stream {
            received = number
            break
        }
        return received
    }
}
