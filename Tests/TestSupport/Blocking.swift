import Dispatch

/// Runs blocking work (waitpid, a blocking connect or read) on a serial
/// queue of its own and awaits its result. Never on
/// `DispatchQueue.global()`: on Linux it shares its threads with Swift's
/// cooperative pool, so blocking there stalls every task in the process.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue(label: "test-support.blocking").async { continuation.resume(returning: body()) }
    }
}
