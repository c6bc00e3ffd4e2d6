import HTTP
import ModgudSimulator
import Synchronization
import TestSupport

/// A hop on loopback between the gateway and the in-process simulator:
/// its own listener on one loop, a `baseURL` the gateway takes as Modgud's,
/// and `attach` making the simulator name the hop as its issuer, so that
/// discovery keeps every endpoint behind it. Each request's body is read
/// whole and handed, with the way on to the simulator, to the use's
/// `respond` hook, which records, rewrites or answers in the simulator's
/// stead. Requests that arrive before `attach` (discovery at start) are
/// held until then; after `stop` the listener refuses every call.
final class SimulatorHop: Sendable {
    /// One request at the hop, its body read.
    struct Exchange: Sendable {
        let request: HTTPRequest
        let body: [UInt8]
        let simulator: Simulator

        var path: String { String(request.path) }
        var form: [(name: String, value: String)] { FormURLEncoded.parse(body) ?? [] }

        /// The request as it arrived, answered by the simulator.
        func forward() async -> HTTPResponse {
            var head = request.head
            head.framing = body.isEmpty ? .none : .contentLength(body.count)
            return await simulator.respond(HTTPRequest(head: head, body: .bytes(body), peer: request.peer))
        }
    }

    private struct State {
        var simulator: Simulator?
        var waiting: [CheckedContinuation<Simulator, Never>] = []
    }

    private let state = Mutex(State())
    private let server = Mutex<LoopbackServer?>(nil)
    /// The port stays known after the listener closed.
    private let port = Mutex<UInt16>(0)

    var baseURL: String { "http://127.0.0.1:\(port.withLock { $0 })" }

    /// A hop not yet listening; `listen` starts it.
    init() {}

    /// Starts the listener (its loop named `name`); every request goes to `respond`.
    func listen(name: String, respond: @escaping @Sendable (Exchange) async -> HTTPResponse) async throws {
        let server = try await LoopbackServer.launch(loops: 1, name: name, configure: { _ in }) { [self] request in
            let simulator = await attached()
            let body = (try? await request.body.collect(upTo: 1 << 20)) ?? []
            return await respond(Exchange(request: request, body: body, simulator: simulator))
        }
        self.server.withLock { $0 = server }
        port.withLock { $0 = server.port }
    }

    /// Forwards to `simulator` from now on, which names this hop as its
    /// issuer; calls held until now go on.
    func attach(_ simulator: Simulator) {
        let base = baseURL
        simulator.updateConfig { $0.publicURL = base }
        let waiting = state.withLock { state in
            state.simulator = simulator
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: simulator) }
    }

    /// Closes the listener: every later call is refused. Only the first call does anything.
    func stop() async {
        guard let server = server.withLock({ server in defer { server = nil }; return server }) else { return }
        await server.stop()
    }

    private func attached() async -> Simulator {
        await withCheckedContinuation { continuation in
            let ready: Simulator? = state.withLock { state in
                if let simulator = state.simulator { return simulator }
                state.waiting.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
