import Core
import System

/// One server's presence on one event loop: its listening socket, the
/// connections it accepted there, and the deadline sweep. Lives on, and is
/// touched only from, that loop's thread.
final class ServerLoopState: EventLoopHandler {
    let loop: EventLoop
    let configuration: HTTPServerConfiguration
    let workers: RequestWorkers
    let immediate: HTTPImmediateResponder?
    let stats: HTTPServerStats
    /// Open connections per peer address, across the server's loops.
    let addressCounts: AddressCounts
    let refusalCounts: AddressCounts
    let dateCache = HTTPDateCache()
    /// The configured timeouts in nanoseconds, converted once: converting a
    /// `Duration` multiplies 128-bit integers, and every request sets deadlines.
    let spans: TimeoutSpans
    /// One read buffer shared by every connection on this loop: a read(2)
    /// into it and a copy out of it, neither reaching back, so it goes
    /// without the run-time exclusivity check (see EventLoop).
    @exclusivity(unchecked) var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    private var listenerFD: Int32
    private var listenerRegistration: Registration?
    private var acceptPaused = false
    private let connectionCap: Int
    private(set) var connections: [ObjectIdentifier: HTTPConnection] = [:]
    private(set) var draining = false
    private var sweepTimer: UInt64?

    init(loop: EventLoop, listenerFD: Int32, connectionCap: Int, configuration: HTTPServerConfiguration,
         responder: @escaping HTTPResponder, immediate: HTTPImmediateResponder?,
         stats: HTTPServerStats, addressCounts: AddressCounts, refusalCounts: AddressCounts) throws(SystemError) {
        self.loop = loop
        self.listenerFD = listenerFD
        self.connectionCap = connectionCap
        self.configuration = configuration
        spans = TimeoutSpans(configuration)
        workers = RequestWorkers(loop: loop, responder: responder, stats: stats,
                                 maxIdle: configuration.maxIdleWorkers)
        self.immediate = immediate
        self.stats = stats
        self.addressCounts = addressCounts
        self.refusalCounts = refusalCounts
        listenerRegistration = try loop.register(listenerFD, for: .readable, handler: self)
        scheduleSweep()
    }

    // MARK: Accepting

    func handleEvents(_ events: EpollEvents) {
        var accepted = 0
        while accepted < 256, connections.count < connectionCap, listenerFD >= 0 {
            let next: (fd: Int32, peer: SocketAddress?)?
            do {
                next = try Socket.accept(listenerFD)
            } catch {
                // Out of descriptors or memory: back off rather than spin.
                pauseAccepting(for: .milliseconds(100))
                return
            }
            guard let (fd, peer) = next else { return }
            accepted += 1
            adopt(fd: fd, peer: peer)
        }
        if connections.count >= connectionCap { pauseAccepting(for: nil) }
    }

    private func adopt(fd: Int32, peer: SocketAddress?) {
        Socket.setNoDelay(fd)
        let connection = HTTPConnection(fd: fd, peer: peer, owner: self)
        var overCap = false
        if let address = cappedAddress(peer) {
            if addressCounts.claim(address, limit: configuration.maxConnectionsPerAddress) {
                connection.countedAddress = address
            } else if refusalCounts.claim(address, limit: Self.lingeringRefusals) {
                overCap = true
                connection.refusedAddress = address
            } else {
                // Refused answers already linger for this address: one more
                // would only hold a descriptor and a place under the
                // server's own cap. Closed at once, unanswered.
                stats.refusedConnections.add(1, ordering: .relaxed)
                Socket.close(fd)
                return
            }
        }
        do {
            try connection.start()
        } catch {
            release(connection)
            Socket.close(fd)
            return
        }
        connections[ObjectIdentifier(connection)] = connection
        stats.openConnections.add(1, ordering: .relaxed)
        stats.acceptedConnections.add(1, ordering: .relaxed)
        if overCap {
            stats.refusedConnections.add(1, ordering: .relaxed)
            connection.refuseOverAddressCap()
        }
    }

    /// How many refused connections of one address may linger at once,
    /// each until its 429 is read (at most the lingering close's 2 s).
    static let lingeringRefusals = 4

    /// Gives back what `connection` counted against its address.
    private func release(_ connection: HTTPConnection) {
        if let address = connection.countedAddress { addressCounts.release(address) }
        if let address = connection.refusedAddress { refusalCounts.release(address) }
    }

    /// The address a peer's connection counts against (an IPv6 peer's
    /// /64), when the per-address cap is on and the peer is not one it
    /// leaves out.
    private func cappedAddress(_ peer: SocketAddress?) -> IPAddress? {
        guard configuration.maxConnectionsPerAddress > 0, let address = peer?.ip,
              !configuration.uncappedPeers.contains(where: { $0.contains(address) }) else { return nil }
        return address.clientKey
    }

    private func pauseAccepting(for delay: Duration?) {
        guard !acceptPaused, let registration = listenerRegistration else { return }
        acceptPaused = true
        loop.modify(registration, fd: listenerFD, for: [])
        // Strong captures here and below: a weak reference would give this
        // object a side table and put every retain of it on the slow path.
        if let delay { loop.schedule(after: delay) { self.resumeAccepting() } }
    }

    private func resumeAccepting() {
        guard acceptPaused, let registration = listenerRegistration else { return }
        acceptPaused = false
        loop.modify(registration, fd: listenerFD, for: .readable)
    }

    /// Called by a connection once it has closed its descriptor.
    func connectionClosed(_ connection: HTTPConnection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        release(connection)
        stats.openConnections.subtract(1, ordering: .relaxed)
        if acceptPaused, connections.count < connectionCap { resumeAccepting() }
    }

    // MARK: Deadlines

    private func scheduleSweep() {
        sweepTimer = loop.schedule(after: configuration.sweepInterval) {
            let now = self.loop.now
            for connection in Array(self.connections.values) { connection.checkDeadlines(now: now) }
            self.scheduleSweep()
        }
    }

    // MARK: Shutdown

    /// Stops accepting and closes the listening socket; idle connections
    /// close now, busy ones after their current response.
    func beginDrain() {
        draining = true
        closeListener()
        for connection in Array(connections.values) { connection.drain() }
    }

    /// Closes every remaining connection at once (the grace period is over).
    func forceClose() {
        for connection in Array(connections.values) { connection.close() }
        workers.close()
        if let sweepTimer { loop.cancelTimer(sweepTimer) }
        sweepTimer = nil
    }

    private func closeListener() {
        guard listenerFD >= 0 else { return }
        if let registration = listenerRegistration { loop.deregister(registration, fd: listenerFD) }
        listenerRegistration = nil
        Socket.close(listenerFD)
        listenerFD = -1
    }
}

/// `HTTPServerConfiguration`'s timeouts as nanoseconds on the loop's clock.
struct TimeoutSpans {
    let header: UInt64
    let body: UInt64
    let idle: UInt64
    let write: UInt64
    /// `bodyRateGrace` in nanoseconds, and `bodyMinRate` (0: no rate deadline).
    let bodyGrace: UInt64
    let bodyMinRate: UInt64

    init(_ configuration: HTTPServerConfiguration) {
        header = configuration.headerTimeout.nanoseconds
        body = configuration.bodyTimeout.nanoseconds
        idle = configuration.idleTimeout.nanoseconds
        write = configuration.writeTimeout.nanoseconds
        bodyGrace = configuration.bodyRateGrace.nanoseconds
        bodyMinRate = UInt64(max(0, configuration.bodyMinRate))
    }
}
