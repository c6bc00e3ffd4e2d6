import Configuration
import Core
import HTTP
import Modgud
import Observability
import Redis
import Sessions
import SessionsRedis
import System

extension GatewayService {
    /// A listener's settings; `capsAddresses` puts the per-address
    /// connection cap on it (the public listener: trusted proxies are
    /// left out, their clients are counted by `ForwardedClientLimit`; a
    /// Unix-domain socket's peers have no address and are never counted).
    static func serverConfiguration(_ config: GatewayConfig, address: ListenAddress,
                                    capsAddresses: Bool = false) -> HTTPServerConfiguration {
        var server = HTTPServerConfiguration(
            address: SocketAddress(ip: address.host, port: address.port),
            parserLimits: HTTPParserLimits(maxHeaderBytes: config.maxHeaderBytes),
            maxConnections: config.maxConnections,
            headerTimeout: config.headerTimeout,
            bodyTimeout: config.bodyTimeout,
            idleTimeout: config.idleTimeout,
            writeTimeout: config.writeTimeout)
        if let path = address.socketPath {
            server.unixSocket = UnixSocketFile(path: path, mode: config.listenMode,
                                               group: config.listenGroup.flatMap(Socket.groupID))
        }
        server.bodyMinRate = config.bodyMinRate
        server.bodyRateGrace = config.bodyRateGrace
        if capsAddresses {
            server.maxConnectionsPerAddress = config.maxConnectionsPerAddress
            server.uncappedPeers = config.trustedProxies
        }
        return server
    }

    /// Sign-in needs Modgud's URL and the login client; without them the
    /// gateway serves no `/bff/*` sign-in endpoint.
    static func modgudConfiguration(_ config: GatewayConfig) -> ModgudConfiguration? {
        guard let url = config.modgudURL, let client = config.client else { return nil }
        return ModgudConfiguration(baseURL: url.description, clientID: client.id, clientSecret: client.secret,
                                   machineClientID: config.machineClient?.id, machineClientSecret: config.machineClient?.secret,
                                   scopes: config.scopes, resources: signInAudiences(config), timeout: config.modgudTimeout)
    }

    /// The audiences a sign-in asks for: the default one and those of the
    /// routes that attach the user's token, so that a refresh can narrow a
    /// token to any of them. A `client` route's audience is the machine
    /// client's business: no user token is ever valid for it.
    static func signInAudiences(_ config: GatewayConfig) -> [String] {
        var resources = config.resource.map { [$0] } ?? []
        for route in config.routes where route.token == .user || route.token == .userOrAnonymous {
            if let resource = route.resource, !resources.contains(resource) { resources.append(resource) }
        }
        return resources
    }

    /// The refresh lock's lease outlasts a whole call to Modgud, so it
    /// cannot run out while the holder still waits for the answer (it is
    /// renewed too); a waiter gives up after the lease plus one call.
    static func refreshSettings(_ config: GatewayConfig) -> RefreshCoordinator.Settings {
        let lease = config.modgudTimeout + .seconds(5)
        return RefreshCoordinator.Settings(skew: config.refreshSkew, reuseLeeway: config.refreshReuseLeeway, lease: lease,
                                           waitLimit: lease + config.modgudTimeout, defaultResource: config.resource)
    }

    static func sessionConfiguration(_ config: GatewayConfig) -> SessionConfiguration {
        // The session directory's key derives from the client secret: every
        // instance reads every card (Docs/sessions.md, "Session cards").
        SessionConfiguration(cookieName: config.sessionCookie, idleTimeout: config.sessionIdleTimeout,
                             absoluteTimeout: config.sessionAbsoluteTimeout, directorySecret: config.client?.secret)
    }

    /// The session cache: up to 4,096 sealed records (about 6 MB), served
    /// while Redis's invalidations are at most BFF_SESSION_CACHE_STALENESS_MS
    /// behind; nil when that is 0.
    static func sessionCache(_ config: GatewayConfig, redis: RedisConfiguration, publisher: RedisClient,
                             loop: EventLoop) -> RedisTrackedCache? {
        guard config.sessionCacheStaleness > .zero else { return nil }
        return RedisTrackedCache(configuration: redis, loop: loop, publisher: publisher,
                                 settings: RedisSessionStore.recordCacheSettings(capacity: 4096,
                                                                                 maxStaleness: config.sessionCacheStaleness))
    }

    /// What `/bff/capabilities` reports from the configuration alone;
    /// `Capabilities.merge` narrows it by Modgud's policy at each request.
    static func capabilities(_ config: GatewayConfig) -> JSON {
        let signIn = config.modgudURL != nil && config.client != nil
        return ["signIn": ["emailCode": .bool(signIn), "magicLink": .bool(signIn), "passkey": .bool(signIn), "register": .bool(signIn),
                           "codeFlow": .bool(signIn && config.codeFlow)],
                "features": ["apiProxy": .bool(!config.routes.isEmpty), "passkeyManagement": .bool(signIn),
                             "logout": .bool(signIn), "sessions": .bool(signIn),
                             "appLogin": .bool(signIn && !config.apps.isEmpty),
                             "crossDevice": .bool(signIn && config.crossDevice)]]
    }

    /// The code flow's redirect URI, error path, post-logout redirect and counters.
    static func codeFlowSettings(_ config: GatewayConfig, metrics: MetricsRegistry) -> CodeFlowSettings {
        CodeFlowSettings(redirectURI: config.redirectURI, errorPath: config.signInErrorPath,
                         postLogoutRedirect: config.postLogoutRedirect, enabled: config.codeFlow,
                         metrics: CodeFlowMetrics(metrics))
    }

    /// Whether the cross-device sign-in is offered, and its counters.
    static func crossDeviceSettings(_ config: GatewayConfig, metrics: MetricsRegistry) -> CrossDeviceSettings {
        CrossDeviceSettings(enabled: config.crossDevice, metrics: CrossDeviceMetrics(metrics))
    }

    /// `/readyz`: Redis answers PING; Modgud answers its discovery document
    /// (checked at most every few seconds).
    /// `durable`: the connections of the writes that wait for replicas,
    /// when there are any; a sign-in needs them too.
    static func readinessChecks(redis: RedisClient, durable: RedisClient?, modgud: ModgudClient?) -> [any ReadinessCheck] {
        var checks: [any ReadinessCheck] = [ClosureReadinessCheck("redis") {
            // With a cluster: every slot's master must be reachable.
            guard redis.isReady, durable?.isReady ?? true else { return "unreachable" }
            do {
                try await redis.ping()
                return nil
            } catch {
                return "unreachable"
            }
        }]
        if let modgud {
            let probe = CachedProbe(lifetime: .seconds(5)) { await modgud.discover() }
            checks.append(ClosureReadinessCheck("modgud") { await probe.value() ? nil : "unreachable" })
        }
        return checks
    }
}
