import Configuration
import Core
import Crypto
import HTTP
import ModgudSimulator
import Observability
import Synchronization
import System
import TestSupport
@testable import Gateway

/// A whole deployment on loopback for one test: a real redis-server, the
/// Modgud simulator behind a recording relay (so tests see exactly what
/// Modgud answered, byte for byte), and the gateway in front.
final class GatewayHarness: Sendable {
    let group: EventLoopGroup
    let redis: RedisServer
    let simulator: Simulator
    let relay: HTTPServer
    let service: GatewayService
    let logs: LogCapture
    /// The audit trail's lines.
    let audit: LogCapture
    /// Every answer the simulator gave, in order.
    let answers: AnswerLog

    /// One RS256 key for every harness: generating one costs ~100 ms.
    static let signingKey: RSAPrivateKey = try! RSAPrivateKey(bits: 2048)

    private init(group: EventLoopGroup, redis: RedisServer, simulator: Simulator, relay: HTTPServer,
                 service: GatewayService, logs: LogCapture, audit: LogCapture, answers: AnswerLog) {
        self.group = group
        self.redis = redis
        self.simulator = simulator
        self.relay = relay
        self.service = service
        self.logs = logs
        self.audit = audit
        self.answers = answers
    }

    static func start(gateway configure: (inout GatewayConfig) -> Void = { _ in },
                      simulator simulate: @Sendable (inout SimulatorConfig) -> Void = { _ in }) async throws -> GatewayHarness {
        let group = try EventLoopGroup(loops: 2, name: "harness")
        let redis = try await RedisServer.start()
        let simulator = try Simulator(config: .forTesting(), signingKey: signingKey)
        simulator.updateConfig(simulate)
        let answers = AnswerLog()
        let relay = HTTPServer(configuration: HTTPServerConfiguration(address: SocketAddress(ip: .v4(0x7F00_0001), port: 0)),
                               loops: [group.loops[0]]) { request in
            let response = await simulator.respond(request)
            answers.record(response)
            return response
        }
        try await relay.start()
        let base = "http://127.0.0.1:\(relay.localAddress!.port)"
        simulator.updateConfig { $0.publicURL = base }

        var config = GatewayConfig.defaults
        config.listen = ListenAddress(host: .v4(0x7F00_0001), port: 0)
        config.adminListen = ListenAddress(host: .v4(0x7F00_0001), port: 0)
        config.modgudURL = HTTPURL(base)
        config.client = ClientCredentials(id: "bff", secret: Secret("bff-secret"))
        config.redis = RedisEndpoint(host: "127.0.0.1", port: redis.port)
        config.shutdownTimeout = .milliseconds(500)
        configure(&config)
        let (logs, audit) = (LogCapture(), LogCapture())
        let service = try GatewayService(config: config, group: group, logger: Logger(level: .debug, sink: .capturing(logs)),
                                         auditSink: .capturing(audit))
        try await service.start()
        let harness = GatewayHarness(group: group, redis: redis, simulator: simulator, relay: relay, service: service,
                                     logs: logs, audit: audit, answers: answers)
        try await harness.waitForRedis()
        return harness
    }

    func stop() async {
        await service.shutdown()
        await relay.shutdown(gracePeriod: .milliseconds(200))
        await redis.stop()
        group.shutdown()
    }

    var port: UInt16 { service.publicServer.localAddress!.port }
    var adminPort: UInt16 { service.adminServer.localAddress!.port }

    func browser(origin: String = "http://localhost:8080") -> Browser { Browser(port: port, origin: origin) }

    /// The simulator's request log since `seq` (what Modgud received).
    func modgudRequests(since seq: Int = 0) -> [JSON] { simulator.requests(since: seq) }

    private func waitForRedis() async throws {
        for _ in 0..<200 where !service.redis.isReady { try await Task.sleep(for: .milliseconds(10)) }
    }
}

/// Every answer the simulator sent through the relay, in order.
final class AnswerLog: Sendable {
    private let responses = Mutex<[HTTPResponse]>([])

    func record(_ response: HTTPResponse) { responses.withLock { $0.append(response) } }

    var all: [HTTPResponse] { responses.withLock { $0 } }
}
