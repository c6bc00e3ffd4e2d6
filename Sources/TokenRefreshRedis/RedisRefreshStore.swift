import Redis
import Sessions
import SessionsRedis
import TokenRefresh

/// The Redis `RefreshStore`, beside the sessions in the same Redis:
/// - the lock `name` is `bff:l:<name>` (`RedisSessionStore`'s leased locks:
///   `SET NX PX`, renewed and released by compare scripts);
/// - a failure record `name` is a record `bff:s:<name>`, kept with the
///   hold as its TTL (`RedisSessionStore.save`);
/// - outcome messages go out on the channel `bff:refreshed` (`PUBLISH`),
///   which every instance keeps one subscription to, on a connection of
///   its own; with a cluster, on the sharded channels `bff:refreshed{…}`
///   (`SPUBLISH`), the one for the slot range of the session's lock key,
///   which every instance listens to on each node that serves one.
public struct RedisRefreshStore: RefreshStore {
    /// The one channel every instance listens on (without a cluster).
    public static let channel = Array("bff:refreshed".utf8)
    /// The sharded channels (with a cluster).
    public static let shardedChannels = ShardedChannels(prefix: "bff:refreshed")

    private enum Listener: Sendable {
        case channel(RedisSubscriber)
        case shards(ShardedSubscriber)
    }

    private let records: RedisSessionStore
    private let client: RedisClient
    private let listener: Listener

    /// A store keeping locks and failure records in `records`, publishing
    /// on `client`, listening through `subscriber` (a dedicated
    /// connection, started on the first `outcomeMessages`).
    public init(records: RedisSessionStore, client: RedisClient, subscriber: RedisSubscriber) {
        self.records = records
        self.client = client
        listener = .channel(subscriber)
    }

    /// The same on a cluster: `client` is a cluster's, and `shards`
    /// listens on ``shardedChannels``.
    public init(records: RedisSessionStore, client: RedisClient, shards: ShardedSubscriber) {
        self.records = records
        self.client = client
        listener = .shards(shards)
    }

    /// `SessionLockStore.acquireLock`: see the protocol for the contract.
    public func acquireLock(_ name: String, lease: Duration) async throws(SessionStoreError) -> LockToken? {
        try await records.acquireLock(name, lease: lease)
    }

    /// `SessionLockStore.renewLock`: see the protocol for the contract.
    public func renewLock(_ token: LockToken, lease: Duration) async throws(SessionStoreError) -> Bool {
        try await records.renewLock(token, lease: lease)
    }

    /// `SessionLockStore.releaseLock`: see the protocol for the contract.
    @discardableResult
    public func releaseLock(_ token: LockToken) async throws(SessionStoreError) -> Bool {
        try await records.releaseLock(token)
    }

    /// `RefreshStore.rememberFailure`: see the protocol for the contract.
    public func rememberFailure(_ name: String, record: StoredRecord, hold: Duration) async throws(SessionStoreError) {
        try await records.save(name, record: record, ttl: hold)
    }

    /// `RefreshStore.recentFailure`: see the protocol for the contract.
    public func recentFailure(_ name: String) async throws(SessionStoreError) -> StoredRecord? {
        try await records.load(name, touch: nil)
    }

    /// `RefreshStore.publish`: `PUBLISH bff:refreshed <message>`, or
    /// `SPUBLISH` on the sharded channel of the lock key's slot.
    public func publish(_ message: [UInt8], about lockName: String) async throws(SessionStoreError) {
        do throws(RedisError) {
            switch listener {
            case .channel: _ = try await client.publish(Self.channel, message)
            case .shards: _ = try await client.spublish(Self.shardedChannels.channel(about: records.lockKey(lockName)), message)
            }
        } catch {
            throw SessionStoreError(error)
        }
    }

    /// `RefreshStore.outcomeMessages`: starts the subscription
    /// connection(s) and subscribes (the newest 4,096 messages are kept for
    /// a slow reader).
    public func outcomeMessages() async -> AsyncStream<[UInt8]> {
        switch listener {
        case .channel(let subscriber):
            subscriber.start()
            return await subscriber.subscribe(Self.channel, bufferingNewest: 4096)
        case .shards(let shards):
            return await shards.messages(bufferingNewest: 4096)
        }
    }

    /// `RefreshStore.close`: closes the subscription connection(s).
    public func close() async {
        switch listener {
        case .channel(let subscriber): await subscriber.close()
        case .shards(let shards): await shards.close()
        }
    }
}
