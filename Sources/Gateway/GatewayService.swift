import Configuration
import Core
import HTTP
import Observability
import System

/// The running gateway: the public listener and the admin listener on one
/// group of event loops, with the metrics and logger they share.
public final class GatewayService: Sendable {
    public let config: GatewayConfig
    public let logger: Logger
    public let metrics: MetricsRegistry
    public let publicServer: HTTPServer
    public let adminServer: HTTPServer
    /// The public listener's routes, for checks against Docs/openapi.yaml.
    public let publicRoutes: [(method: HTTPMethod, pattern: String)]

    public init(config: GatewayConfig, group: EventLoopGroup, logger: Logger, metrics: MetricsRegistry = MetricsRegistry()) {
        self.config = config
        self.logger = logger
        self.metrics = metrics
        let requestIDs = RequestIDGenerator()

        let publicRouter = Router()
        let publicApp = Application(router: publicRouter,
                                    middlewares: [ObservationMiddleware(metrics: metrics, accessLog: config.accessLog), ErrorMiddleware(),
                                                  CSRFMiddleware(publicOrigin: config.publicOrigin)],
                                    logger: logger, requestIDs: requestIDs)
        publicRoutes = publicApp.routes
        publicServer = HTTPServer(configuration: Self.serverConfiguration(config, address: config.listen),
                                  loops: group.loops) { await publicApp.respond($0) }

        var adminRouter = Router()
        let servers = ServerGauges(metrics: metrics)
        let admin = AdminEndpoints(checks: [], metrics: metrics, beforeScrape: { servers.update() })
        admin.register(in: &adminRouter)
        let adminApp = Application(router: adminRouter,
                                   middlewares: [ObservationMiddleware(metrics: metrics, accessLog: false), ErrorMiddleware()],
                                   logger: logger, requestIDs: requestIDs)
        adminServer = HTTPServer(configuration: Self.serverConfiguration(config, address: config.adminListen),
                                 loops: group.loops) { await adminApp.respond($0) }
        servers.track(publicServer, as: "public")
        servers.track(adminServer, as: "admin")
    }

    static func serverConfiguration(_ config: GatewayConfig, address: ListenAddress) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            address: SocketAddress(ip: address.host, port: address.port),
            parserLimits: HTTPParserLimits(maxHeaderBytes: config.maxHeaderBytes),
            maxConnections: config.maxConnections,
            headerTimeout: config.headerTimeout,
            bodyTimeout: config.bodyTimeout,
            idleTimeout: config.idleTimeout,
            writeTimeout: config.writeTimeout)
    }

    public func start() async throws {
        try await publicServer.start()
        try await adminServer.start()
        logger.info("gateway.started", [
            "listen": .string(publicServer.localAddress?.description ?? "?"),
            "adminListen": .string(adminServer.localAddress?.description ?? "?"),
        ])
    }

    /// Stops accepting on both listeners and lets in-flight requests finish
    /// within the configured shutdown timeout.
    public func shutdown() async {
        logger.info("gateway.draining", ["gracePeriodMs": .int(Int(config.shutdownTimeout.nanoseconds / 1_000_000))])
        async let publicDone: Void = publicServer.shutdown(gracePeriod: config.shutdownTimeout)
        async let adminDone: Void = adminServer.shutdown(gracePeriod: config.shutdownTimeout)
        _ = await (publicDone, adminDone)
        logger.info("gateway.stopped")
    }
}
