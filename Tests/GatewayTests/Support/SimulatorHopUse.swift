import Configuration
import HTTP
import ModgudSimulator

/// A use of a `SimulatorHop` (recording, rewriting): what it does with
/// each request; starting, the hop's address, attaching and stopping are
/// said once here for every use.
protocol SimulatorHopUse: Sendable {
    /// The name of the hop's loop.
    static var loopName: String { get }
    var hop: SimulatorHop { get }
    init()
    /// The answer to one request at the hop (`exchange.forward()` asks the simulator).
    func respond(_ exchange: SimulatorHop.Exchange) async -> HTTPResponse
}

extension SimulatorHopUse {
    /// A new use with its hop listening.
    static func start() async throws -> Self {
        let use = Self()
        try await use.hop.listen(name: loopName) { await use.respond($0) }
        return use
    }

    var baseURL: String { hop.baseURL }

    /// The gateway harness with Modgud behind this hop: the gateway's
    /// Modgud URL is the hop's (set after `configure`), and the simulator
    /// is attached.
    func harness(gateway configure: (inout GatewayConfig) -> Void,
                 simulator simulate: @Sendable (inout SimulatorConfig) -> Void) async throws -> GatewayHarness {
        let url = baseURL
        let harness = try await GatewayHarness.start(gateway: { config in
            configure(&config)
            config.modgudURL = HTTPURL(url)
        }, simulator: simulate)
        attach(harness.simulator)
        return harness
    }

    /// See `SimulatorHop.attach`.
    func attach(_ simulator: Simulator) { hop.attach(simulator) }

    /// See `SimulatorHop.stop`.
    func stop() async { await hop.stop() }
}
