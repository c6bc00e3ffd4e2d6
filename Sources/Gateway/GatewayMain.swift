import Configuration
import Observability
import System
#if canImport(Glibc)
import Glibc
#endif

/// What `modgud-bff` does: read and validate the configuration, start the
/// listeners, run until SIGTERM/SIGINT, drain, and return an exit status.
public enum GatewayMain {
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        let options: CommandLineOptions
        switch CommandLineOptions.parse(arguments) {
        case .success(let parsed): options = parsed
        case .failure(let error):
            writeOut("modgud-bff: \(error)\n\(CommandLineOptions.helpText)", to: 2)
            return 2
        }
        if options.showHelp {
            writeOut(CommandLineOptions.helpText, to: 1)
            return 0
        }
        let config: GatewayConfig
        switch ConfigLoader.load(options, environment: environment) {
        case .success(let loaded): config = loaded
        case .failure(let errors):
            writeOut("modgud-bff: \(errors)", to: 2)
            return 2
        }
        if options.printNginxLocations {
            writeOut(NginxLocations(config).text, to: 1)
            return 0
        }
        if options.checkConfig {
            let cautions = config.cautions(openFileLimit: ResourceLimits.openFileHardLimit())
            writeOut("configuration ok\n\(config)" + cautions.map { "\ncaution: " + $0 }.joined(), to: 1)
            return 0
        }
        return await serve(config)
    }

    static func serve(_ configured: GatewayConfig) async -> Int32 {
        signal(SIGPIPE, SIG_IGN) // a closed peer or log pipe is an error return, never a crash
        let signals = SignalWaiter()
        let logger = Logger(level: LogLevel(rawValue: configured.logLevel.rawValue) ?? .info)
        let openFiles = ResourceLimits.raiseOpenFileLimit()
        for caution in configured.cautions(openFileLimit: openFiles) {
            logger.warning("config.caution", ["text": .string(caution)])
        }
        var config = configured
        config.maxConnections = configured.connectionCap(openFileLimit: openFiles)
        let group: EventLoopGroup
        do {
            group = try EventLoopGroup(loops: config.eventLoops)
        } catch {
            logger.error("gateway.start_failed", ["reason": .string(error.description)])
            return 1
        }
        let service: GatewayService
        do {
            service = try GatewayService(config: config, group: group, logger: logger)
        } catch {
            logger.error("gateway.start_failed", ["reason": .string(String(describing: error))])
            group.shutdown()
            return 1
        }
        do {
            try await service.start()
        } catch {
            logger.error("gateway.start_failed", ["reason": .string(String(describing: error))])
            group.shutdown()
            return 1
        }
        logger.info("gateway.ready", ["loops": .int(config.eventLoops), "openFileLimit": .int(Int(openFiles))])
        let signal = await signals.wait()
        logger.info("gateway.signal", ["signal": .int(Int(signal))])
        await service.shutdown()
        group.shutdown()
        return 0
    }

    /// Writes straight to a descriptor, like the logger, so lines never
    /// interleave with a buffered `print`.
    private static func writeOut(_ text: String, to fd: Int32) {
        let bytes = Array((text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            offset += n
        }
    }
}
