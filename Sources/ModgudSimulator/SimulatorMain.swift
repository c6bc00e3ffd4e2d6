import Core
import Observability
import System
#if canImport(Glibc)
import Glibc
#endif

/// What `modgud-sim` does: read the configuration, start the listener,
/// run until SIGTERM/SIGINT, and return an exit status.
public enum SimulatorMain {
    /// Runs the simulator; returns the exit status (2 for configuration problems).
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        let command: SimulatorCommand
        switch SimulatorConfig.load(arguments: arguments, environment: environment) {
        case .success(let loaded): command = loaded
        case .failure(let problems):
            let count = problems.messages.count
            write("modgud-sim: the configuration has \(count == 1 ? "1 problem" : "\(count) problems"):\n\(problems)\n", to: 2)
            return 2
        }
        if command.showHelp {
            write(SimulatorConfig.helpText + "\n", to: 1)
            return 0
        }
        let config = command.config
        if command.printConfig {
            write(config.json.serializedString + "\n", to: 1)
            return 0
        }
        signal(SIGPIPE, SIG_IGN)
        let signals = SignalWaiter()
        let logger = Logger(level: LogLevel(rawValue: config.logLevel) ?? .info).with("service", "modgud-sim")
        _ = ResourceLimits.raiseOpenFileLimit()
        let group: EventLoopGroup
        let simulator: Simulator
        do {
            group = try EventLoopGroup(loops: config.loops, name: "sim")
            simulator = try Simulator(config: config, logger: logger)
        } catch {
            logger.error("sim.start_failed", ["reason": .string(String(describing: error))])
            return 1
        }
        do {
            try await simulator.start(loops: group.loops)
        } catch {
            logger.error("sim.start_failed", ["reason": .string(String(describing: error))])
            group.shutdown()
            return 1
        }
        logger.warning("sim.not_for_production", ["message": "The Modgud simulator is for development and tests only."])
        logger.info("sim.ready", [
            "listen": .string(simulator.localAddress?.description ?? ""), "issuer": .string(simulator.issuer),
            "loops": .int(config.loops), "dev": .bool(config.devEndpoints),
            "clients": .string(config.clients.map(\.id).joined(separator: ",")),
        ])
        let received = await signals.wait()
        logger.info("sim.signal", ["signal": .int(Int(received))])
        await simulator.shutdown()
        group.shutdown()
        return 0
    }

    /// Straight to a descriptor, like the logger.
    static func write(_ text: String, to fd: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            offset += count
        }
    }
}
