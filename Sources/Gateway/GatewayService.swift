import Configuration
import Core
import HTTP
import HTTPClient
import Modgud
import Observability
import Redis
import Routing
import Sessions
import SessionsRedis
import Synchronization
import System
import TokenRefresh
import TokenRefreshRedis

/// The running gateway: the public listener and the admin listener on one
/// group of event loops, with the clients (Redis, Modgud) and the metrics
/// and logger they share.
public final class GatewayService: Sendable {
    public let config: GatewayConfig
    public let logger: Logger
    public let metrics: MetricsRegistry
    public let publicServer: HTTPServer
    public let adminServer: HTTPServer
    public let redis: RedisClient
    /// With `BFF_REDIS_WAIT_REPLICAS`: the connections of the writes that wait.
    let durableRedis: RedisClient?
    /// With `BFF_REDIS_MODE=sentinel`: follows the master for every connection.
    let sentinelMonitor: SentinelMonitor?
    /// Logs Redis going away and coming back, with the reason.
    private let redisWatch = Mutex<RedisWatch?>(nil)
    public let http: HTTPClient
    public let modgud: ModgudClient?
    public let sessions: SessionManager
    /// The API proxy's client of the upstream APIs (its own pool and timeouts).
    public let upstreams: HTTPClient
    /// Refresh outcomes between instances.
    public let refreshSignals: RefreshSignals
    /// The refresh's locks, failure memos and outcome messages.
    public let refreshStore: RedisRefreshStore
    /// Session records kept current by Redis's invalidations; nil when
    /// BFF_SESSION_CACHE_STALENESS_MS is 0.
    public let sessionCache: RedisTrackedCache?
    /// The public listener's routes, for checks against Docs/openapi.yaml.
    public let publicRoutes: [(method: HTTPMethod, pattern: String)]
    /// Revokes the tokens of ended sessions in the background; drained at shutdown.
    let tokenRevoker: TokenRevoker?
    /// Revokes the tokens of app hand-off codes that expired unredeemed.
    let appLoginSweeper: AppLoginSweeper?

    /// `auditSink`: where the audit trail goes instead of `config.auditLog`
    /// (tests capture it); a file `config.auditLog` names is opened here.
    public init(config: GatewayConfig, group: EventLoopGroup, logger: Logger, metrics: MetricsRegistry = MetricsRegistry(),
                auditSink: LogSink? = nil) throws {
        self.config = config
        self.logger = logger
        self.metrics = metrics
        let requestIDs = RequestIDGenerator()

        let redisSetup = try RedisSetup(config.redis, loop: group.loops[0])
        let redis = RedisClient(configuration: redisSetup.configuration, loops: group.loops)
        let sessionCache = Self.sessionCache(config, redis: redisSetup.configuration, publisher: redis, loop: group.loops[0])
        // Writes followed by WAIT get connections of their own (see Durability).
        let durableRedis = config.redis.waitReplicas > 0 ? RedisClient(configuration: redisSetup.configuration, loops: group.loops) : nil
        let records = RedisSessionStore(client: redis, durability: RedisSetup.durability(config.redis, client: durableRedis,
                                                                                         metrics: metrics, logger: logger))
        let sessions = SessionManager(store: records, cache: sessionCache.map { RedisRecordCache($0, store: records) },
                                      configuration: Self.sessionConfiguration(config))
        var clientSettings = HTTPClientConfiguration(connectTimeout: .seconds(2), timeout: config.modgudTimeout)
        clientSettings.caFile = config.modgudCAFile
        let http = try HTTPClient(configuration: clientSettings, loops: group.loops)
        let modgudCalls = ModgudCallMetrics(metrics: metrics)
        let modgud = Self.modgudConfiguration(config).map {
            ModgudClient(configuration: $0, http: http, observer: { modgudCalls.record($0, $1) })
        }
        let upstreams = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), timeout: config.upstreamTimeout),
                                       loops: group.loops)
        let refreshStore = redisSetup.configuration.cluster == nil
            ? RedisRefreshStore(records: records, client: redis,
                                subscriber: RedisSubscriber(configuration: redisSetup.configuration, loop: group.loops[0]))
            : RedisRefreshStore(records: records, client: redis,
                                shards: ShardedSubscriber(client: redis, configuration: redisSetup.configuration, loop: group.loops[0],
                                                          channels: RedisRefreshStore.shardedChannels))
        let signals = RefreshSignals(store: refreshStore, metrics: metrics, logger: logger)
        self.redis = redis
        self.durableRedis = durableRedis
        sentinelMonitor = redisSetup.monitor
        self.sessions = sessions
        self.http = http
        self.modgud = modgud
        self.upstreams = upstreams
        refreshSignals = signals
        self.refreshStore = refreshStore
        self.sessionCache = sessionCache

        var publicRouter = RouterBuilder()
        let bodyLimit = RouteOptions(maxBodyBytes: config.maxBodyBytes)
        let relay = ModgudRelay(metrics: metrics)
        let addresses = ClientAddressResolver(trustedProxies: config.trustedProxies,
                                              header: ForwardedHeader(rawValue: config.forwardedHeader) ?? .xForwardedFor,
                                              peersAreProxies: config.listen.socketPath != nil)
        let audit = AuditTrail(log: try auditSink.map(AuditLog.init) ?? Self.auditLog(config), metrics: metrics,
                               namesEmail: config.auditEmail)
        var refresher: RefreshCoordinator?
        var clientTokens: ClientTokenCache?
        var appLoginSweeper: AppLoginSweeper?
        if let modgud {
            let coordinator = RefreshCoordinator(modgud: modgud, sessions: sessions, store: refreshStore, signals: signals,
                                                 settings: Self.refreshSettings(config), relay: relay, metrics: metrics,
                                                 audit: audit)
            refresher = coordinator
            if config.machineClient != nil {
                clientTokens = ClientTokenCache(modgud: modgud, relay: relay, skew: config.refreshSkew)
            }
            let identity = IdentityTokens(modgud: modgud, skew: Int64(config.idTokenSkew.components.seconds))
            let shared = SignInContext(modgud: modgud, sessions: sessions, relay: relay, addresses: addresses, identity: identity,
                                       audit: audit)
            let ends = SessionEndCounters(metrics: metrics)
            let sessionList = SessionListEndpoints(shared: shared, revoker: coordinator.revoker, counters: ends)
            let appLogin = config.apps.isEmpty ? nil : AppLoginSettings(config: config, metrics: metrics)
            appLoginSweeper = appLogin.map {
                AppLoginSweeper(sessions: sessions, modgud: modgud, settings: $0, logger: logger, audit: audit)
            }
            SignInEndpoints(shared: shared, refresher: coordinator, capabilities: Self.capabilities(config),
                            codeFlow: Self.codeFlowSettings(config, metrics: metrics), sessionList: sessionList,
                            appLogin: appLogin,
                            crossDevice: Self.crossDeviceSettings(config, metrics: metrics))
                .register(in: &publicRouter, options: bodyLimit)
            BackchannelLogoutEndpoint(shared: shared, replays: records, counters: ends).register(in: &publicRouter)
        }
        tokenRevoker = refresher?.revoker
        self.appLoginSweeper = appLoginSweeper
        APIProxy(upstreams: upstreams, sessions: sessions, refresher: refresher, clientTokens: clientTokens,
                 addresses: addresses, publicOrigin: config.publicOrigin, timeout: config.upstreamTimeout,
                 defaultMaxBodyBytes: config.proxyMaxBodyBytes)
            .register(config.routes, in: &publicRouter)
        // Last: every /bff/ endpoint and API route wins over a static file.
        try StaticFiles(config)?.register(in: &publicRouter)
        var publicStages: [any Middleware] = [ObservationMiddleware(metrics: metrics, accessLog: config.accessLog), ErrorMiddleware(),
                                              RateLimitAudit(audit: audit, addresses: addresses)]
        if let limit = ForwardedClientLimit(addresses: addresses, limit: config.maxConnectionsPerAddress, metrics: metrics) {
            publicStages.append(limit)
        }
        publicStages.append(CSRFMiddleware(publicOrigin: config.publicOrigin))
        let publicApp = Application(router: publicRouter.build(), middlewares: publicStages, logger: logger, requestIDs: requestIDs,
                                    tracePeers: addresses.tracePeers)
        publicRoutes = publicApp.routes
        publicServer = HTTPServer(configuration: Self.serverConfiguration(config, address: config.listen, capsAddresses: true),
                                  loops: group.loops, responder: publicApp.respond, immediate: publicApp.immediateResponder)

        var adminRouter = RouterBuilder()
        let servers = ServerGauges(metrics: metrics)
        let cacheMetrics = sessionCache.map { SessionCacheMetrics(cache: $0, metrics: metrics) }
        let store = StoreGauge(redis: redis, metrics: metrics)
        let admin = AdminEndpoints(checks: Self.readinessChecks(redis: redis, durable: durableRedis, modgud: modgud), metrics: metrics,
                                   beforeScrape: {
                                       servers.update()
                                       store.update()
                                       cacheMetrics?.update()
                                   })
        admin.register(in: &adminRouter)
        let adminApp = Application(router: adminRouter.build(),
                                   middlewares: [ObservationMiddleware(metrics: metrics, accessLog: false), ErrorMiddleware()],
                                   logger: logger, requestIDs: requestIDs)
        adminServer = HTTPServer(configuration: Self.serverConfiguration(config, address: config.adminListen),
                                 loops: group.loops, responder: adminApp.respond, immediate: adminApp.immediateResponder)
        servers.track(publicServer, as: "public")
        servers.track(adminServer, as: "admin")
    }

    public func start() async throws {
        sentinelMonitor?.start()
        redis.start()
        durableRedis?.start()
        redisWatch.withLock { $0 = RedisWatch(redis: redis, logger: logger) }
        refreshSignals.start()
        sessionCache?.start()
        appLoginSweeper?.start()
        try await publicServer.start()
        try await adminServer.start()
        logger.info("gateway.started", [
            "listen": .string(publicServer.listenDescription),
            "adminListen": .string(adminServer.listenDescription),
            "signIn": .bool(modgud != nil),
            "staticRoot": .string(config.staticRoot ?? "off"),
        ])
        if let modgud { Task.detached { [logger] in await Self.discover(modgud, logger: logger) } }
    }

    /// Reads Modgud's discovery document, retrying with back-off until it
    /// answers; until then the documented endpoint paths are used.
    static func discover(_ modgud: ModgudClient, logger: Logger) async {
        var delay = Duration.milliseconds(250)
        for attempt in 1... {
            if await modgud.discover() {
                logger.info("modgud.discovered", ["attempts": .int(attempt)])
                let ignored = modgud.endpoints.ignored
                if !ignored.isEmpty {
                    logger.warning("modgud.discovery_endpoints_ignored", [
                        "keys": .string(ignored.joined(separator: ",")), "reason": "not on the scheme, host and port of BFF_MODGUD_URL",
                    ])
                }
                return
            }
            if attempt == 1 { logger.warning("modgud.discovery_failed", ["retrying": .bool(true)]) }
            try? await Task.sleep(for: delay)
            if Task.isCancelled { return }
            delay = min(delay * 2, .seconds(30))
        }
    }

    /// Stops accepting on both listeners and lets in-flight requests finish
    /// within the configured shutdown timeout, then closes the clients.
    public func shutdown() async {
        logger.info("gateway.draining", ["gracePeriodMs": .int(Int(config.shutdownTimeout.nanoseconds / 1_000_000))])
        async let publicDone: Void = publicServer.shutdown(gracePeriod: config.shutdownTimeout)
        async let adminDone: Void = adminServer.shutdown(gracePeriod: config.shutdownTimeout)
        _ = await (publicDone, adminDone)
        appLoginSweeper?.stop()
        // Revocations of sessions that ended just before: they need the
        // client to Modgud, which closes below.
        if let unfinished = await tokenRevoker?.drain(within: min(config.shutdownTimeout, .seconds(5))), unfinished > 0 {
            logger.warning("gateway.revocations_unfinished", ["count": .int(unfinished)])
        }
        await refreshSignals.close()
        await sessionCache?.close()
        redisWatch.withLock { $0?.stop() }
        await redis.close()
        await durableRedis?.close()
        await sentinelMonitor?.close()
        await http.shutdown()
        await upstreams.shutdown()
        logger.info("gateway.stopped")
    }
}
