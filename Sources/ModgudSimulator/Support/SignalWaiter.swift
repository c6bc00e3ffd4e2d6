import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Catches SIGTERM and SIGINT from the moment it is made (their default
/// actions are replaced by dispatch sources), so the process stops
/// cleanly. The gateway has its own; the simulator does not import it.
struct SignalWaiter {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32] = [SIGTERM, SIGINT]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let queue = DispatchQueue(label: "sim-signals")
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
    func wait() async -> Int32 {
        for await number in stream { return number }
        return 0
    }
}
