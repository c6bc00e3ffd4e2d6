import Core
import Synchronization
import System

/// An HTTP/1.1 server: one SO_REUSEPORT listener on each of its loops, so
/// the kernel spreads connections over the cores, and every connection
/// lives on the loop that accepted it.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    public let stats = HTTPServerStats()
    /// Open connections per peer address (`maxConnectionsPerAddress`).
    public let addressCounts = AddressCounts()
    /// Connections refused over that cap and still lingering, per address.
    public let refusalCounts = AddressCounts()
    private let loops: [EventLoop]
    private let responder: HTTPResponder
    private let immediate: HTTPImmediateResponder?
    private let states = Mutex<[LoopBound<ServerLoopState>]>([])
    private let boundAddress = Mutex<SocketAddress?>(nil)
    private let socketFile = Mutex<FileIdentity?>(nil)

    /// `immediate`, when given, is asked first about every request without
    /// a body; what it declines goes to `responder`.
    public init(configuration: HTTPServerConfiguration, loops: [EventLoop], responder: @escaping HTTPResponder,
                immediate: HTTPImmediateResponder? = nil) {
        precondition(!loops.isEmpty, "a server needs at least one event loop")
        self.configuration = configuration
        self.loops = loops
        self.responder = responder
        self.immediate = immediate
    }

    /// The address actually bound (with the real port when 0 was asked);
    /// nil for a Unix-domain socket.
    public var localAddress: SocketAddress? { boundAddress.withLock { $0 } }

    /// Where the server listens, as an operator writes it: `127.0.0.1:8080`
    /// or `unix:/run/modgud-bff/public.sock`.
    public var listenDescription: String {
        configuration.unixSocket?.description ?? localAddress?.description ?? "?"
    }

    /// Binds every listener and starts accepting.
    public func start() async throws {
        if let file = configuration.unixSocket {
            try await startLoops(listenUnix(file))
        } else {
            try await startLoops(listenTCP())
        }
    }

    /// One SO_REUSEPORT socket per loop.
    private func listenTCP() throws -> [Int32] {
        var address = configuration.address
        var fds: [Int32] = []
        do {
            // A fixed port: refused when another process listens there.
            if address.port != 0 { try Socket.checkUnused(address) }
            for _ in loops {
                let fd = try Socket.listen(on: address, reusePort: true)
                fds.append(fd)
                if address.port == 0 { address = try Socket.localAddress(fd) }
            }
        } catch {
            fds.forEach(Socket.close)
            throw error
        }
        boundAddress.withLock { $0 = address }
        return fds
    }

    /// One Unix-domain socket (SO_REUSEPORT does not spread those), a
    /// descriptor of it per loop: the loops take turns at its backlog.
    private func listenUnix(_ file: UnixSocketFile) throws -> [Int32] {
        let (fd, identity) = try Socket.listen(on: file)
        socketFile.withLock { $0 = identity }
        var fds = [fd]
        do {
            for _ in loops.dropFirst() { fds.append(try Socket.duplicate(fd)) }
        } catch {
            fds.forEach(Socket.close)
            Socket.removeSocketFile(file.path, identity: identity)
            throw error
        }
        return fds
    }

    private func startLoops(_ fds: [Int32]) async throws {
        let cap = max(1, (configuration.maxConnections + loops.count - 1) / loops.count)
        let configuration = configuration, responder = responder, immediate = immediate, stats = stats,
            addressCounts = addressCounts, refusalCounts = refusalCounts
        for (loop, fd) in zip(loops, fds) {
            let state = try await loop.submit { () -> Result<LoopBound<ServerLoopState>, SystemError> in
                let made = Result { () throws(SystemError) in
                    try ServerLoopState(loop: loop, listenerFD: fd, connectionCap: cap,
                                        configuration: configuration, responder: responder, immediate: immediate,
                                        stats: stats, addressCounts: addressCounts, refusalCounts: refusalCounts)
                }
                if case .failure = made { Socket.close(fd) }
                return made.map { LoopBound($0, loop: loop) }
            }.get()
            states.withLock { $0.append(state) }
        }
    }

    /// Graceful shutdown: stop accepting at once (new connections are
    /// refused), close idle connections, let in-flight requests finish
    /// within `gracePeriod`, then close whatever remains.
    public func shutdown(gracePeriod: Duration) async {
        let states = states.withLock { $0 }
        for state in states { state.withValue { $0.beginDrain() } }
        if let file = configuration.unixSocket, let identity = socketFile.withLock({ $0 }) {
            Socket.removeSocketFile(file.path, identity: identity)
        }
        let deadline = ContinuousClock.now + gracePeriod
        while stats.openConnections.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for state in states {
            await state.loop.submit { state.valueInLoop.forceClose() }
        }
    }
}
