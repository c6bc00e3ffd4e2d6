import Synchronization
import System

/// Listens on every channel of a ``ShardedChannels`` set across a cluster:
/// one sharded subscriber connection per node that serves one of the
/// channels' slots, each channel subscribed where the cluster's map puts
/// it, and moved when the map changes (checked every 250 ms). Messages of
/// all channels come out of one stream. As with any pub/sub, a message
/// published while its channel moves may be lost.
public final class ShardedSubscriber: Sendable {
    private struct Placement {
        let node: RedisAddress
        let forwarder: Task<Void, Never>
    }

    private struct State {
        var subscribers: [RedisAddress: RedisSubscriber] = [:]
        var placements: [Int: Placement] = [:]
        var output: AsyncStream<[UInt8]>.Continuation?
        var follower: Task<Void, Never>?
        var closed = false
    }

    private let router: ClusterRouter
    private let configuration: RedisConfiguration
    private let loop: EventLoop
    private let channels: ShardedChannels
    private let state = Mutex(State())

    /// Subscribes through connections on `loop` made with `configuration`
    /// (a cluster's settings), placing the channels by `client`'s map.
    public init(client: RedisClient, configuration: RedisConfiguration, loop: EventLoop, channels: ShardedChannels) {
        precondition(client.router != nil, "a ShardedSubscriber needs a cluster's client")
        router = client.router!
        self.configuration = configuration
        self.loop = loop
        self.channels = channels
    }

    /// Every message of every channel from now on (the newest `limit` kept
    /// for a slow reader). Call once.
    public func messages(bufferingNewest limit: Int) async -> AsyncStream<[UInt8]> {
        let (stream, output) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        state.withLock { $0.output = output }
        await place()
        let follower = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: ClusterRouter.eagerRefresh)
                await place()
            }
        }
        state.withLock { $0.follower = follower }
        return stream
    }

    public func close() async {
        let (subscribers, placements, output, follower) = state.withLock { state in
            state.closed = true
            defer {
                state.subscribers = [:]
                state.placements = [:]
            }
            return (Array(state.subscribers.values), Array(state.placements.values), state.output, state.follower)
        }
        follower?.cancel()
        for placement in placements { placement.forwarder.cancel() }
        for subscriber in subscribers { await subscriber.close() }
        output?.finish()
    }

    /// Subscribes each channel at the node the map names for its slot.
    private func place() async {
        for (index, channel) in channels.channels.enumerated() {
            guard let owner = router.node(for: channels.slots[index]) else { continue }
            let current = state.withLock { $0.placements[index]?.node }
            guard current != owner, let subscriber = subscriber(for: owner) else { continue }
            let stream = await subscriber.subscribe(channel)
            let output = state.withLock { $0.output }
            let forwarder = Task {
                for await message in stream { output?.yield(message) }
            }
            let previous: Placement? = state.withLock { state in
                guard !state.closed else { return Placement(node: owner, forwarder: forwarder) }
                defer { state.placements[index] = Placement(node: owner, forwarder: forwarder) }
                return state.placements[index]
            }
            previous?.forwarder.cancel()
        }
    }

    private func subscriber(for address: RedisAddress) -> RedisSubscriber? {
        var made: RedisSubscriber?
        let subscriber: RedisSubscriber? = state.withLock { state in
            guard !state.closed else { return nil }
            if let known = state.subscribers[address] { return known }
            let subscriber = RedisSubscriber(configuration: configuration.node(at: address), loop: loop, sharded: true)
            state.subscribers[address] = subscriber
            made = subscriber
            return subscriber
        }
        made?.start()
        return subscriber
    }
}
