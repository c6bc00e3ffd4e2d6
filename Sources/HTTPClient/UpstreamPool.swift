import HTTPCodec
import System

/// The client's own HTTP/1.1 connections to plain-HTTP upstreams on one
/// event loop, by endpoint (`host:port` as written): idle ones wait here
/// for the next request (newest first), running exchanges are found by id
/// (for cancellation and the reader catching up, which so hold no
/// reference to a connection), and requests past the per-host limit queue
/// in order.
///
/// Loop-confined: every method runs on `loop`'s thread; other threads and
/// `@Sendable` callbacks hold it as a `LoopBound`.
final class UpstreamPool {
    let loop: EventLoop
    let configuration: HTTPClientConfiguration
    let stats: HTTPClientStats
    /// The running, idle and queued exchanges and connections (see `State`).
    ///
    /// `@exclusivity(unchecked)`: touched on the loop thread only, and no
    /// access to it is held across a call that could reach it again: an
    /// entry of `running` is looked up and then called, and removed by its
    /// connection (which stays alive meanwhile); an idle list is never
    /// removed (it stays for the pool's life); a queued exchange is taken
    /// out before it is started (shutdown fails them first, then drops
    /// them inside the access: an exchange and its upload channel have no
    /// deinit). So no deinit that could reach back into it runs inside an
    /// access; the run-time check, several per request, could never fire
    /// (see EventLoop).
    @exclusivity(unchecked) var state = State()
    private var open: [String: Int] = [:]
    private var shutDown = false
    /// Scratch space for reads and for the body pieces being framed; used
    /// only inside one loop callback at a time.
    let readBuffer: UnsafeMutableRawBufferPointer
    let uploadBuffer: UnsafeMutableRawBufferPointer
    /// `configuration.maxIdleConnectionAge` in nanoseconds, converted once:
    /// it is read twice per request.
    private let maxIdleAge: UInt64

    init(loop: EventLoop, configuration: HTTPClientConfiguration, stats: HTTPClientStats) {
        self.loop = loop
        self.configuration = configuration
        self.stats = stats
        maxIdleAge = configuration.maxIdleConnectionAge.nanoseconds
        readBuffer = .allocate(byteCount: 16 * 1024, alignment: 16)
        uploadBuffer = .allocate(byteCount: 16 * 1024, alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
        uploadBuffer.deallocate()
    }

    // MARK: Starting

    func start(id: UInt64, target: PlainHTTPTarget, request: HTTPClientRequest, body: HTTPClientRequestBody?,
               waiter: UpstreamExchange.Waiter) {
        loop.assertInLoop()
        guard !shutDown else { return waiter.resume(returning: .failure(.cancelled)) }
        stats.requests.add(1, ordering: .relaxed)
        var upload: UploadChannel?
        if body != nil {
            let bound = LoopBound(self, loop: loop)
            upload = UploadChannel(highWater: configuration.streamBufferBytes, stats: stats,
                                   onReadable: { bound.later { $0.state.running[id]?.uploadReadable() } })
        }
        let idleTimeout = UInt64(max(1_000_000, (request.timeout ?? configuration.timeout).nanoseconds))
        let exchange = UpstreamExchange(
            id: id, target: target, request: request, streamedLength: body.map { $0.length },
            upload: upload, idleTimeout: idleTimeout, waiter: waiter, now: loop.now)
        if let body, let upload { exchange.pump = upload.startPump(from: body, on: loop) }
        dispatch(exchange)
    }

    /// The buffer for exchange `id`'s streamed body, made when its head
    /// arrives without the whole body.
    func makeChannel(id: UInt64) -> ResponseBodyChannel {
        let bound = LoopBound(self, loop: loop)
        return ResponseBodyChannel(
            highWater: configuration.streamBufferBytes, stats: stats,
            onDrained: { bound.later { $0.state.running[id]?.resumeReceive() } },
            onAbandon: { bound.later { $0.cancel(id: id) } })
    }

    /// Sends `exchange` on an idle connection, a new one, or (past the
    /// per-host limit) queues it.
    private func dispatch(_ exchange: UpstreamExchange) {
        let endpoint = exchange.target.endpoint
        if let connection = takeIdle(for: exchange) { return connection.begin(exchange) }
        if let limit = configuration.maxConnectionsPerHost, open[endpoint, default: 0] >= max(1, limit) {
            state.queued[endpoint, default: []].append(exchange)
            // Waiting for a connection counts against the idle timeout too.
            let id = exchange.id
            loop.schedule(after: .nanoseconds(Int64(exchange.idleTimeout))) { [self] in
                if let exchange = dequeue(id) { fail(exchange, .timedOut(requestSent: false)) }
            }
            return
        }
        openConnection(for: exchange)
    }

    private func openConnection(for exchange: UpstreamExchange) {
        let endpoint = exchange.target.endpoint
        open[endpoint, default: 0] += 1
        UpstreamConnection(pool: self, endpoint: endpoint, idleList: idleList(exchange.target))
            .open(for: exchange, connectTimeout: configuration.connectTimeout)
    }

    /// A reused connection turned out closed before the request reached
    /// the server: once more, on a new connection that takes the closed
    /// one's place (first in line, within the per-host limit).
    func retry(_ exchange: UpstreamExchange, replacing connection: UpstreamConnection) {
        guard !shutDown else {
            connection.close()
            return fail(exchange, .cancelled)
        }
        state.queued[exchange.target.endpoint, default: []].insert(exchange, at: 0)
        connection.close()
    }

    /// The list of idle connections to `target`'s endpoint, made on first
    /// use. A list stays, emptied, for the pool's life (one per endpoint
    /// the client has opened a connection to), so the connections can
    /// keep theirs.
    private func idleList(_ target: PlainHTTPTarget) -> IdleList {
        if let existing = existingIdleList(target) { return existing }
        let list = IdleList(endpoint: target.endpoint)
        state.idle[target.endpoint] = list
        if let slot = target.slot { number(list, slot) }
        return list
    }

    /// The endpoint's list if there is one: by the target's slot when it
    /// has one (a base from `HTTPClient.base`) and the list there is this
    /// endpoint's; else by name (a base another client numbered, too).
    private func existingIdleList(_ target: PlainHTTPTarget) -> IdleList? {
        guard let slot = target.slot else { return state.idle[target.endpoint] }
        if slot < state.idleBySlot.count, let list = state.idleBySlot[slot] {
            return list.endpoint == target.endpoint ? list : state.idle[target.endpoint]
        }
        guard let list = state.idle[target.endpoint] else { return nil }
        number(list, slot)
        return list
    }

    /// Files `list` under `slot` unless another endpoint's list is there.
    private func number(_ list: IdleList, _ slot: Int) {
        if state.idleBySlot.count <= slot { state.idleBySlot += Array(repeating: nil, count: slot + 1 - state.idleBySlot.count) }
        if state.idleBySlot[slot] == nil { state.idleBySlot[slot] = list }
    }

    /// The newest idle connection young enough to trust, with nothing
    /// waiting to be read. An idle connection is watched, so one the server
    /// closed, or left bytes on, before the loop last waited for events is
    /// gone already; else a peek at the socket (a system call) finds out.
    /// The peek is skipped for an exchange that may go again on a
    /// connection idle since before that wait: a close since then sends
    /// the exchange again on a new connection (`UpstreamConnection.endOfStream`).
    /// A connection released in this very pass is always peeked: a
    /// response that ended where a read ended may have left bytes behind,
    /// which the next request must not take for its answer.
    private func takeIdle(for exchange: UpstreamExchange) -> UpstreamConnection? {
        guard let list = existingIdleList(exchange.target) else { return nil }
        while let connection = list.connections.popLast() {
            state.idleCount -= 1
            if loop.now &- connection.idleSince < maxIdleAge,
               (exchange.mayRetry && connection.watchedSinceTheLastWait) || connection.isQuiet {
                return connection
            }
            connection.close()
        }
        return nil
    }

    // MARK: Connections coming back

    /// A connection finished its exchange and can carry another.
    func release(_ connection: UpstreamConnection) {
        if !state.queued.isEmpty, state.queued[connection.endpoint] != nil {
            // Closed, it makes room for the one in line on a new connection.
            guard connection.isQuiet else { return connection.close() }
            if let next = nextInLine(connection.endpoint) { return connection.begin(next) }
        }
        guard !shutDown, state.idleCount < configuration.maxIdleConnections else { return connection.close() }
        connection.idleSince = loop.now
        connection.idlePass = loop.passes
        let list = connection.idleList
        list.connections.append(connection)
        state.idleCount += 1
        // The oldest idle connection of this endpoint goes once too old.
        if let oldest = list.connections.first, loop.now &- oldest.idleSince >= maxIdleAge {
            oldest.close()
        }
    }

    /// A connection closed: it leaves the counts, and a queued request may
    /// now open one of its own.
    func closed(_ connection: UpstreamConnection) {
        let endpoint = connection.endpoint
        let list = connection.idleList
        if let index = list.connections.lastIndex(where: { $0 === connection }) {
            list.connections.remove(at: index)
            state.idleCount -= 1
        }
        let count = open[endpoint, default: 1] - 1
        open[endpoint] = count > 0 ? count : nil
        if !shutDown, let next = nextInLine(endpoint) { openConnection(for: next) }
    }

    /// The request that has waited longest for a connection to `endpoint`.
    private func nextInLine(_ endpoint: String) -> UpstreamExchange? {
        guard var waiting = state.queued[endpoint], !waiting.isEmpty else { return nil }
        let next = waiting.removeFirst()
        state.queued[endpoint] = waiting.isEmpty ? nil : waiting
        return next
    }

    // MARK: Ending early

    /// Cancels exchange `id` wherever it is.
    func cancel(id: UInt64) {
        loop.assertInLoop()
        if let connection = state.running[id] { return connection.fail(.cancelled) }
        if let exchange = dequeue(id) { fail(exchange, .cancelled) }
    }

    private func dequeue(_ id: UInt64) -> UpstreamExchange? {
        for (endpoint, var waiting) in state.queued {
            guard let index = waiting.firstIndex(where: { $0.id == id }) else { continue }
            let exchange = waiting.remove(at: index)
            state.queued[endpoint] = waiting.isEmpty ? nil : waiting
            return exchange
        }
        return nil
    }

    /// Ends an exchange that never reached a connection.
    private func fail(_ exchange: UpstreamExchange, _ error: HTTPClientError) {
        stats.failures.add(1, ordering: .relaxed)
        exchange.fail(error)
    }

    /// Ends every exchange with `.cancelled` and closes every connection.
    func shutdown() {
        loop.assertInLoop()
        guard !shutDown else { return }
        shutDown = true
        for exchange in state.queued.values.joined() { fail(exchange, .cancelled) }
        state.queued.removeAll()
        for connection in Array(state.running.values) { connection.fail(.cancelled) }
        for connection in state.idle.values.flatMap(\.connections) { connection.close() }
    }
}

/// The idle connections of one endpoint, oldest first. A class: taking one
/// and putting it back (every request) mutate it in place, where an array
/// in the dictionary would go through the dictionary's modify accessor.
final class IdleList {
    /// Whose connections these are.
    let endpoint: String

    init(endpoint: String) {
        self.endpoint = endpoint
    }

    /// Unchecked like the pool's own lists: appends, and removals that
    /// return the connection (`close` runs after the access).
    @exclusivity(unchecked) var connections: [UpstreamConnection] = []
}
