import Core
import Crypto
import HTTP
import HTTPClient
import Observability
import Routing
import Synchronization
import System

/// The bundled Modgud simulator: Modgud's native-app endpoints, OIDC
/// basics, rate limits, trusted-forwarder rules, token rotation and
/// passkeys, answered from memory. For local runs, demos, tests and load
/// tests: **never for production** (see Docs/simulator.md).
///
/// ```swift
/// let simulator = try Simulator(config: .forTesting())
/// try await simulator.start(loops: group.loops)
/// // … http://127.0.0.1:\(simulator.port) …
/// await simulator.shutdown()
/// ```
public final class Simulator: Sendable {
    let core: SimulatorCore
    /// The routes, and the answers to what none serves.
    private let app: Application
    private let server: Mutex<HTTPServer?> = Mutex(nil)

    /// A simulator with `config`. `signingKey` (RS256, for id_tokens)
    /// defaults to a fresh 2048-bit key; tests may share one to save time.
    public init(config: SimulatorConfig, signingKey: RSAPrivateKey? = nil, logger: Logger = Logger(sink: .discarding)) throws {
        let key = try signingKey ?? RSAPrivateKey(bits: 2048)
        let core = SimulatorCore(state: SimulatorState(config: config, signingKey: key, logger: logger))
        self.core = core
        app = Application(router: core.routes(), middlewares: [UnmatchedAnswers(core: core)], logger: logger)
    }

    /// Answers one request (what the HTTP server calls; usable in-process).
    public func respond(_ request: HTTPRequest) async -> HTTPResponse {
        await app.respond(request)
    }

    /// Binds the listener on `loops` and starts serving. When no public
    /// URL is configured, the issuer becomes `http://<bound address>`
    /// (127.0.0.1 for a wildcard bind).
    public func start(loops: [EventLoop]) async throws {
        let config = core.state.config
        let server = HTTPServer(configuration: HTTPServerConfiguration(address: config.listen), loops: loops) { [app] request in
            await app.respond(request)
        }
        try await server.start()
        self.server.withLock { $0 = server }
        core.state.backchannel.attach(try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(2),
                                                                                              timeout: .seconds(10)),
                                                     loops: loops))
        if config.publicURL == nil, let bound = server.localAddress {
            var shown = bound
            if case .v4(0) = bound.ip { shown.ip = .v4(0x7F00_0001) }
            core.state.setIssuer("http://\(shown)")
        }
    }

    /// The bound address, once started.
    public var localAddress: SocketAddress? { server.withLock { $0?.localAddress } }

    /// The bound port, once started (0 before).
    public var port: UInt16 { localAddress?.port ?? 0 }

    /// The issuer (public URL without a trailing slash).
    public var issuer: String { core.state.issuer }

    /// The current configuration.
    public var config: SimulatorConfig { core.state.config }

    /// Changes the configuration in place (as `POST /dev/config` does, without validation).
    public func updateConfig(_ change: @Sendable (inout SimulatorConfig) -> Void) {
        let updated = core.state.updateConfig(change)
        if let url = updated.publicURL { core.state.setIssuer(url) }
    }

    /// Stops accepting and lets in-flight requests finish; pending
    /// back-channel retries are dropped.
    public func shutdown(gracePeriod: Duration = .seconds(1)) async {
        await core.state.backchannel.shutdown()
        guard let server = server.withLock({ $0 }) else { return }
        await server.shutdown(gracePeriod: gracePeriod)
    }
}
