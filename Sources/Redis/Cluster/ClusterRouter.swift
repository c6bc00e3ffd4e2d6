import Synchronization
import System

/// Redis Cluster for one ``RedisClient``: the slot map, a client per node
/// (one connection per loop each), and the redirects. The map comes from
/// `CLUSTER SLOTS` at start, again after every `MOVED`, while a node that
/// serves slots is unreachable (a failover under way), and every
/// ``steadyRefresh`` otherwise.
final class ClusterRouter: Sendable {
    /// How often the map is read while it is whole and every node answers.
    static let steadyRefresh = Duration.seconds(15)
    /// How often while it is not.
    static let eagerRefresh = Duration.milliseconds(250)

    private struct State {
        var map = SlotMap()
        var clients: [RedisAddress: RedisClient] = [:]
        var refreshWanted = true
        var closed = false
    }

    private let seeds: [RedisAddress]
    /// What every node's client shares.
    private let shared: RedisConfiguration
    private let loops: [EventLoop]
    private let state = Mutex(State())
    private let refresher = Mutex<Task<Void, Never>?>(nil)

    /// `configuration` holds what every node shares (credentials, TLS,
    /// timeouts); its host and port are replaced by each node's.
    init(seeds: [RedisAddress], configuration: RedisConfiguration, loops: [EventLoop]) {
        self.seeds = seeds
        var shared = configuration
        shared.cluster = nil
        shared.sentinel = nil
        shared.database = 0
        self.shared = shared
        self.loops = loops
    }

    func start() {
        for seed in seeds { _ = client(for: seed) }
        // Looks every `eagerRefresh`, reads the map when it is wanted (a
        // redirect, a node gone), incomplete, or `steadyRefresh` old.
        let task = Task { [self] in
            var last = ContinuousClock.now
            await refresh()
            while !state.withLock({ $0.closed }) {
                try? await Task.sleep(for: Self.eagerRefresh)
                let wanted = state.withLock { $0.refreshWanted }
                guard wanted || !isReady || ContinuousClock.now - last >= Self.steadyRefresh else { continue }
                last = ContinuousClock.now
                await refresh()
            }
        }
        refresher.withLock { $0 = task }
    }

    func close() async {
        let clients = state.withLock { state in
            state.closed = true
            return Array(state.clients.values)
        }
        refresher.withLock { $0?.cancel() }
        for client in clients { await client.close() }
    }

    /// Whether every slot has a node and every such node can take commands.
    var isReady: Bool {
        state.withLock { state in
            state.map.isComplete && state.map.nodes.allSatisfy { state.clients[$0]?.isReady == true }
        }
    }

    func waitUntilReady(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isReady {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    var lastFailureReason: String? {
        state.withLock { state in
            if !state.map.isComplete { return "the cluster's slot map is not complete" }
            return state.clients.values.lazy.compactMap(\.lastFailureReason).first
        }
    }

    /// The masters that serve at least one slot now.
    var masters: [RedisAddress] {
        state.withLock { $0.map.servingNodes }
    }

    /// The node the map names for `slot`.
    func node(for slot: Int) -> RedisAddress? {
        state.withLock { $0.map.node(for: slot) }
    }

    // MARK: Routing

    /// Runs `body` on a connection to the node serving `slot` (any node for
    /// nil), following `MOVED` (the map is updated) and `ASK` (`body` is told
    /// to send `ASKING` first), at most a few hops.
    func routed<T>(_ slot: Int?, _ body: (RedisConnection, _ asking: Bool) async throws(RedisError) -> T) async throws(RedisError) -> T {
        var target: RedisAddress?
        for _ in 0..<5 {
            let connection = try self.connection(slot: slot, at: target)
            do throws(RedisError) {
                return try await body(connection, target != nil)
            } catch {
                guard case .server(let text) = error, let redirect = ClusterRedirect(text) else {
                    if error == .unavailable || error == .connectionLost { wantRefresh() }
                    throw error
                }
                switch redirect {
                case .moved(let moved, let address):
                    state.withLock { $0.map.assign(moved...moved, to: address) }
                    _ = client(for: address)
                    wantRefresh()
                    target = nil
                case .ask(_, let address):
                    target = address
                }
            }
        }
        throw .unavailable
    }

    private func connection(slot: Int?, at target: RedisAddress?) throws(RedisError) -> RedisConnection {
        if let target { return try client(for: target).connection() }
        let client: RedisClient? = state.withLock { state in
            if let slot {
                guard let node = state.map.node(for: slot) else { return nil }
                return state.clients[node]
            }
            for node in state.map.nodes { if let client = state.clients[node], client.isReady { return client } }
            return state.clients.values.first { $0.isReady }
        }
        guard let client else {
            wantRefresh()
            throw .unavailable
        }
        return try client.connection()
    }

    /// The client of `address`, made and started on first use.
    private func client(for address: RedisAddress) -> RedisClient {
        var made: RedisClient?
        let client = state.withLock { state in
            if let known = state.clients[address] { return known }
            let client = RedisClient(configuration: shared.node(at: address), loops: loops)
            state.clients[address] = client
            made = client
            return client
        }
        made?.start()
        return client
    }

    private func wantRefresh() {
        state.withLock { $0.refreshWanted = true }
    }

    /// Reads `CLUSTER SLOTS` from the first node that answers: the known
    /// masters first, then the seeds.
    func refresh() async {
        let candidates: [RedisAddress] = state.withLock { state in
            var list = state.map.nodes
            for address in state.clients.keys where !list.contains(address) { list.append(address) }
            return list
        }
        for address in candidates + seeds where client(for: address).isReady {
            guard let reply = try? await client(for: address).send([Array("CLUSTER".utf8), Array("SLOTS".utf8)]),
                  let map = SlotMap(clusterSlots: reply, asked: address)
            else { continue }
            for node in map.nodes { _ = client(for: node) }
            state.withLock { state in
                state.map = map
                state.refreshWanted = !map.isComplete
            }
            return
        }
    }
}
