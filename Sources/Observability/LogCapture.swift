import Synchronization

/// Collects log lines in memory, for tests: `Logger(sink: .capturing(capture))`.
/// Safe to share between threads.
public final class LogCapture: Sendable {
    private let storage = Mutex<[String]>([])

    public init() {}

    /// Every line captured so far, oldest first, without newlines.
    public var lines: [String] { storage.withLock { $0 } }

    /// Adds one line.
    public func append(_ line: String) {
        storage.withLock { $0.append(line) }
    }

    /// Forgets every line.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }
}
