import Synchronization
import System

/// Replies to reads of keys under one prefix, kept in memory for as long as
/// Redis's server-assisted client-side caching (`CLIENT TRACKING`, broadcast
/// mode) says the key is unchanged: any write, expiry, eviction or deletion
/// of a key under the prefix, by any client, is announced on a dedicated
/// connection and drops the entry.
///
/// A cached reply is served only while both hold:
/// - the tracking connection is up and its set-up is confirmed (`CLIENT ID`,
///   `CLIENT TRACKING ON REDIRECT <own id> BCAST PREFIX …`, `SUBSCRIBE
///   __redis__:invalidate`); when it drops, everything is forgotten;
/// - a heartbeat (`PUBLISH` on a channel of this cache's own, sent through
///   `publisher`) that left no more than `maxStaleness` ago has come back on
///   that connection. Redis writes an invalidation to the tracking
///   connection while it runs the write, before the writer hears back, and
///   a connection delivers in order; so a heartbeat that came back proves
///   every write acknowledged before it left was announced. A stalled
///   connection therefore serves nothing older than `maxStaleness`.
///
/// A read that fills the cache takes a ticket first; an invalidation of the
/// key (or a flush) while the read is in flight voids it, so a reply that
/// crossed an invalidation is returned to its caller but never cached.
///
/// Thread-safe: lookups and fills from any thread, the connection on `loop`.
public final class RedisTrackedCache: Sendable {
    /// The settings.
    public struct Settings: Sendable {
        /// Keys under this prefix are tracked; the cache is addressed by the
        /// rest of the key.
        public var keyPrefix: [UInt8]
        /// Entries kept at most; when full, an arbitrary entry makes room.
        public var capacity: Int
        /// How old the newest returned heartbeat may be for entries to be
        /// served.
        public var maxStaleness: Duration
        /// How often a heartbeat is sent. Default: a quarter of
        /// `maxStaleness`; never below 10 ms.
        public var heartbeatInterval: Duration

        public init(keyPrefix: [UInt8], capacity: Int = 4096, maxStaleness: Duration = .seconds(1),
                    heartbeatInterval: Duration? = nil)
        {
            self.keyPrefix = keyPrefix
            self.capacity = capacity
            self.maxStaleness = maxStaleness
            self.heartbeatInterval = max(heartbeatInterval ?? maxStaleness / 4, .milliseconds(10))
        }
    }

    /// Counts since start, for metrics and tests.
    public struct Statistics: Sendable, Equatable {
        /// Lookups answered from memory.
        public var hits = 0
        /// Lookups that found nothing usable.
        public var misses = 0
        /// Keys Redis announced as changed (cached or not).
        public var invalidations = 0
        /// Times a tracking cache forgot everything: its connection was lost
        /// or the server flushed its data set. Setting up tracking (at start
        /// or after a reconnect) forgets nothing and is not counted.
        public var flushes = 0

        public init() {}
    }

    /// The settings.
    public let settings: Settings
    let entries: TrackedEntries
    private let trackers: TrackerSet
    private let closed = Atomic<Bool>(false)

    /// A cache whose tracking connection lives on `loop`, connecting with
    /// `configuration`; heartbeats are published through `publisher`. With
    /// a cluster (`configuration.cluster`, and `publisher` a client of it)
    /// there is one tracking connection per master, and entries are served
    /// only while every one is current. Nothing happens until ``start()``.
    public init(configuration: RedisConfiguration, loop: EventLoop, publisher: RedisClient, settings: Settings) {
        self.settings = settings
        let entries = TrackedEntries(capacity: settings.capacity, maxStaleness: settings.maxStaleness.nanoseconds)
        self.entries = entries
        trackers = TrackerSet(configuration: configuration, loop: loop, entries: entries, publisher: publisher, settings: settings)
    }

    deinit {
        if !closed.load(ordering: .acquiring) { trackers.closeLater() }
    }

    /// Starts connecting and tracking in the background. Idempotent.
    public func start() {
        trackers.start()
    }

    /// Stops tracking, forgets everything and closes the connections.
    public func close() async {
        closed.store(true, ordering: .releasing)
        await trackers.close()
    }

    /// Whether entries may be served now: tracking confirmed and a heartbeat
    /// recent enough.
    public var isCurrent: Bool { entries.isCurrent(now: MonotonicClock.now()) }

    /// Why the tracking connection last failed, if it did.
    public var lastFailureReason: String? { trackers.lastFailureReason }

    /// The cached reply for the key `keyPrefix + key`, when there is one and
    /// the cache is current.
    public func cached(_ key: String) -> RedisValue? { entries.lookup(key, now: MonotonicClock.now()) }

    /// Runs `read` (which reads the key `keyPrefix + key`) and caches its
    /// reply when `read` says it may be kept and no invalidation of the key
    /// crossed it. The reply is returned either way.
    public func fill(_ key: String, by read: () async throws(RedisError) -> (reply: RedisValue, keep: Bool))
        async throws(RedisError) -> RedisValue
    {
        let ticket = entries.beginRead(key)
        let result: (reply: RedisValue, keep: Bool)
        do throws(RedisError) { result = try await read() } catch {
            if let ticket { entries.endRead(key, ticket: ticket, reply: nil) }
            throw error
        }
        if let ticket { entries.endRead(key, ticket: ticket, reply: result.keep ? result.reply : nil) }
        return result.reply
    }

    /// Drops the entry for `key` now, without waiting for Redis to announce
    /// it: called before this process writes or deletes the key.
    public func forget(_ key: String) { entries.forget(key) }

    /// The counts so far.
    public var statistics: Statistics { entries.statistics }

    /// Entries held now.
    public var count: Int { entries.count }
}

/// The shared, lock-protected side of a ``RedisTrackedCache``: entries,
/// in-flight read tickets, and whether tracking is trusted. Several
/// tracking connections (one per master of a cluster) may feed it: entries
/// are served only while every one of them tracks and is current.
final class TrackedEntries: Sendable {
    private struct Table {
        var entries: [String: RedisValue] = [:]
        /// The ticket of the latest read in flight per key.
        var reads: [String: UInt64] = [:]
        var nextTicket: UInt64 = 1
        /// Bumped whenever everything is forgotten: voids every ticket.
        var generation: UInt64 = 0
        /// Each tracking connection's state, by its id.
        var trackers: [UInt64: (tracking: Bool, currentUntil: UInt64)] = [:]
        /// Every tracker tracks (and there is one).
        var tracking = false
        /// Monotonic ns until which entries may be served: the earliest of
        /// the trackers'.
        var currentUntil: UInt64 = 0
        var statistics = RedisTrackedCache.Statistics()

        mutating func aggregate() {
            tracking = !trackers.isEmpty && trackers.values.allSatisfy(\.tracking)
            currentUntil = tracking ? trackers.values.lazy.map(\.currentUntil).min() ?? 0 : 0
        }
    }

    struct Ticket {
        let generation: UInt64
        let number: UInt64
    }

    private let table = Mutex(Table())
    private let capacity: Int
    private let maxStaleness: UInt64

    init(capacity: Int, maxStaleness: UInt64) {
        self.capacity = capacity
        self.maxStaleness = maxStaleness
    }

    func isCurrent(now: UInt64) -> Bool {
        table.withLock { $0.tracking && now < $0.currentUntil }
    }

    func lookup(_ key: String, now: UInt64) -> RedisValue? {
        table.withLock { table in
            guard table.tracking, now < table.currentUntil, let reply = table.entries[key] else {
                table.statistics.misses += 1
                return nil
            }
            table.statistics.hits += 1
            return reply
        }
    }

    /// A ticket for a read of `key` that may fill the cache, or nil while
    /// tracking is not confirmed (its reply could miss an invalidation).
    func beginRead(_ key: String) -> Ticket? {
        guard capacity > 0 else { return nil }
        return table.withLock { table in
            guard table.tracking else { return nil }
            let number = table.nextTicket
            table.nextTicket &+= 1
            table.reads[key] = number
            return Ticket(generation: table.generation, number: number)
        }
    }

    /// Ends a read: stores `reply` when given and the ticket is still valid.
    func endRead(_ key: String, ticket: Ticket, reply: RedisValue?) {
        table.withLock { table in
            guard table.generation == ticket.generation, table.reads[key] == ticket.number else { return }
            table.reads[key] = nil
            guard let reply else { return }
            if table.entries[key] == nil, table.entries.count >= capacity {
                table.entries.remove(at: table.entries.startIndex)
            }
            table.entries[key] = reply
        }
    }

    /// Drops `key` and voids the read in flight for it, if any.
    func forget(_ key: String) {
        table.withLock { table in
            table.reads[key] = nil
            table.entries[key] = nil
        }
    }

    /// Redis announced that `keys` changed.
    func invalidate(_ keys: [String]) {
        table.withLock { table in
            for key in keys {
                table.reads[key] = nil
                table.entries[key] = nil
            }
            table.statistics.invalidations += keys.count
        }
    }

    /// Forgets every entry and voids every ticket; `tracking` says whether
    /// `tracker` tracks from now on. Counted as a flush only when the cache
    /// was tracking: before that it holds nothing to forget.
    func flush(tracking: Bool, tracker: UInt64) {
        table.withLock { table in
            if table.tracking { table.statistics.flushes += 1 }
            table.generation &+= 1
            table.entries.removeAll()
            table.reads.removeAll()
            guard let state = table.trackers[tracker] else { return table.aggregate() }
            table.trackers[tracker] = (tracking, tracking ? state.currentUntil : 0)
            table.aggregate()
        }
    }

    /// A heartbeat `tracker` sent at `sentAt` came back: everything
    /// announced to it before is known.
    func confirm(sentAt: UInt64, tracker: UInt64) {
        table.withLock { table in
            guard let state = table.trackers[tracker], state.tracking else { return }
            table.trackers[tracker] = (true, max(state.currentUntil, sentAt &+ maxStaleness))
            table.aggregate()
        }
    }

    /// A new tracking connection: nothing is served until it tracks (its
    /// set-up then forgets everything, so no entry predates it).
    func add(tracker: UInt64) {
        table.withLock { table in
            table.trackers[tracker] = (false, 0)
            table.aggregate()
        }
    }

    /// A tracking connection closed for good (its node serves no slot).
    func remove(tracker: UInt64) {
        table.withLock { table in
            table.trackers[tracker] = nil
            table.aggregate()
        }
    }

    var statistics: RedisTrackedCache.Statistics { table.withLock { $0.statistics } }
    var count: Int { table.withLock { $0.entries.count } }
}
