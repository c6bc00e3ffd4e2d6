import Sessions
import Testing
import TestSupport

/// The backends the conformance suite and the manager tests run against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, redis
    var testDescription: String { rawValue }
}

/// One store under test, with the means to move its time and take it down.
protocol StoreHarness: Sendable {
    var store: any SessionStore & SessionLockStore { get }
    /// The clock the store reads absolute expiries from.
    var unixClock: any UnixClock { get }
    /// Lets `duration` pass on the store's clocks (memory: moves the manual
    /// clock; Redis: sleeps, since the server keeps real time).
    func advance(by duration: Duration) async throws
    /// Takes the backend down (memory: simulated outage; Redis: the server stops).
    func stop() async throws
    /// Brings it back and waits until the store answers again.
    func restart() async throws
    /// Releases everything (stops a server).
    func shutdown() async
    /// How much to stretch short TTLs: Redis keeps real time, and a loaded
    /// machine running the whole suite in parallel needs slack.
    var timeScale: Int64 { get }
}

extension StoreHarness {
    var timeScale: Int64 { 1 }

    /// `milliseconds`, stretched by the harness's time scale.
    func ms(_ milliseconds: Int64) -> Duration { .milliseconds(milliseconds * timeScale) }
}

struct MemoryHarness: StoreHarness {
    let clock = ManualClock()
    let memory: MemorySessionStore<ManualClock>

    init() { memory = MemorySessionStore(clock: clock, unixClock: clock) }

    var store: any SessionStore & SessionLockStore { memory }
    var unixClock: any UnixClock { clock }
    func advance(by duration: Duration) async throws { clock.advance(by: duration) }
    func stop() async throws { await memory.setUnavailable(true) }
    func restart() async throws { await memory.setUnavailable(false) }
    func shutdown() async {}
}

/// Runs `body` with a fresh harness of `kind`, always shutting it down.
func withHarness<T>(_ kind: StoreKind, _ body: (any StoreHarness) async throws -> T) async throws -> T {
    let harness: any StoreHarness = switch kind {
    case .memory: MemoryHarness()
    case .redis: try await RedisHarness.start()
    }
    return try await withShutdown(harness, shutdown: { await $0.shutdown() }, body)
}
