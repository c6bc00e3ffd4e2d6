import Synchronization
import System

/// The tracking connections of a ``RedisTrackedCache``, all on one loop:
/// one to the server, or with a cluster one per master, following the
/// cluster's map (checked every 250 ms): a new master gets a connection,
/// and a node that serves no slot any more loses its.
final class TrackerSet: Sendable {
    private struct Tracker: Sendable {
        let core: LoopBound<TrackingCore>
        let status: ConnectionStatus
        let id: UInt64
    }

    private struct State {
        var trackers: [RedisAddress: Tracker] = [:]
        var nextID: UInt64 = 0
        var started = false
        var closed = false
    }

    private let configuration: RedisConfiguration
    private let loop: EventLoop
    private let entries: TrackedEntries
    private let publisher: RedisClient
    private let settings: RedisTrackedCache.Settings
    private let state = Mutex(State())
    private let watcher = Mutex<Task<Void, Never>?>(nil)

    init(configuration: RedisConfiguration, loop: EventLoop, entries: TrackedEntries, publisher: RedisClient,
         settings: RedisTrackedCache.Settings) {
        self.configuration = configuration
        self.loop = loop
        self.entries = entries
        self.publisher = publisher
        self.settings = settings
        if configuration.cluster == nil {
            add(RedisAddress(host: configuration.host, port: configuration.port), start: false)
        }
    }

    func start() {
        let trackers: [Tracker]? = state.withLock { state in
            guard !state.started, !state.closed else { return nil }
            state.started = true
            return Array(state.trackers.values)
        }
        guard let trackers else { return }
        for tracker in trackers { tracker.core.withValue { $0.start() } }
        guard let router = publisher.router else { return }
        let task = Task { [self] in
            while !state.withLock({ $0.closed }) {
                await follow(router.masters)
                try? await Task.sleep(for: ClusterRouter.eagerRefresh)
            }
        }
        watcher.withLock { $0 = task }
    }

    func close() async {
        watcher.withLock { $0?.cancel() }
        let trackers = state.withLock { state in
            state.closed = true
            defer { state.trackers = [:] }
            return Array(state.trackers.values)
        }
        for tracker in trackers { await tracker.core.withValueAndWait { $0.close() } }
    }

    /// Closes every tracker on a loop that still runs (the cache was dropped unclosed).
    func closeLater() {
        for tracker in state.withLock({ Array($0.trackers.values) }) { tracker.core.later { $0.close() } }
    }

    var lastFailureReason: String? {
        state.withLock { $0.trackers.values.lazy.compactMap { $0.status.lastFailure?.description }.first }
    }

    /// One tracker per master in `masters`; none for anything else.
    private func follow(_ masters: [RedisAddress]) async {
        let known = state.withLock { Set($0.trackers.keys) }
        for address in masters where !known.contains(address) { add(address, start: true) }
        for address in known.subtracting(masters) {
            guard let gone = state.withLock({ $0.trackers.removeValue(forKey: address) }) else { continue }
            entries.remove(tracker: gone.id)
            await gone.core.withValueAndWait { $0.close() }
        }
    }

    private func add(_ address: RedisAddress, start: Bool) {
        let node = configuration.node(at: address)
        let status = ConnectionStatus()
        let tracker: Tracker? = state.withLock { state in
            guard !state.closed, state.trackers[address] == nil else { return nil }
            let id = state.nextID
            state.nextID += 1
            entries.add(tracker: id)
            let core = TrackingCore(connection: ConnectionCore(configuration: node, loop: loop, status: status), entries: entries,
                                    publisher: publisher, settings: settings, trackerID: id)
            let tracker = Tracker(core: LoopBound(core, loop: loop), status: status, id: id)
            state.trackers[address] = tracker
            return tracker
        }
        if start, let tracker { tracker.core.withValue { $0.start() } }
    }
}
