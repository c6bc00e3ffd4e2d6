import Configuration
import Crypto
import Observability
import Redis
import SessionsRedis
import System

/// What the Redis settings make once per process: the settings every
/// connection shares (TLS loaded once), and with Sentinel the monitor that
/// follows the master, started and closed with the gateway.
struct RedisSetup: Sendable {
    let configuration: RedisConfiguration
    let monitor: SentinelMonitor?

    /// Fails when the TLS files cannot be loaded (the message names the
    /// OpenSSL step, never a key's bytes).
    init(_ endpoint: RedisEndpoint, loop: EventLoop) throws(RedisSetupError) {
        var security: WireSecurity?
        if let tls = endpoint.tls {
            do {
                let files = try TLSClientConfiguration(caFile: tls.caFile, certificateFile: tls.certificateFile, keyFile: tls.keyFile)
                security = WireSecurity(configuration: files, serverName: tls.serverName)
            } catch {
                throw .tls(error.description)
            }
        }
        var configuration = RedisConfiguration(host: endpoint.host, port: Int(endpoint.port), username: endpoint.username,
                                               password: endpoint.password, database: endpoint.database, security: security)
        switch endpoint.mode {
        case .single:
            monitor = nil
        case .sentinel:
            let sentinels = endpoint.nodes.map { RedisAddress(host: $0.host, port: Int($0.port)) }
            let settings = SentinelSettings(sentinels: sentinels, masterName: endpoint.sentinelMaster ?? "",
                                            username: endpoint.sentinelUsername, password: endpoint.sentinelPassword,
                                            security: security, timeout: configuration.connectTimeout)
            let monitor = SentinelMonitor(settings: settings, loop: loop)
            configuration.sentinel = monitor
            self.monitor = monitor
        case .cluster:
            configuration.cluster = endpoint.nodes.map { RedisAddress(host: $0.host, port: Int($0.port)) }
            monitor = nil
        }
        self.configuration = configuration
    }

    /// `BFF_REDIS_WAIT_REPLICAS` for the session store: a write that fewer
    /// replicas acknowledged, or that went without `WAIT` after such a
    /// shortfall, is counted; a `WAIT` that fell short is logged. The write
    /// stands either way.
    static func durability(_ endpoint: RedisEndpoint, client: RedisClient?, metrics: MetricsRegistry,
                           logger: Logger) -> RedisSessionStore.Durability? {
        // Registered either way, so the series exists (at 0) for an alert.
        let shortfalls = metrics.counter("bff_redis_wait_shortfalls_total",
                                         help: "Session writes not acknowledged by BFF_REDIS_WAIT_REPLICAS replicas: WAIT fell short, or was skipped for a second after it did.")
        guard endpoint.waitReplicas > 0 else { return nil }
        let wanted = endpoint.waitReplicas
        return RedisSessionStore.Durability(replicas: wanted, timeout: endpoint.waitTimeout, client: client) { acknowledged in
            shortfalls.increment()
            if let acknowledged {
                logger.warning("redis.wait_shortfall", ["wanted": .int(wanted), "acknowledged": .int(acknowledged)])
            }
        }
    }
}

/// Why the Redis settings could not be put to use at start.
enum RedisSetupError: Error, CustomStringConvertible {
    case tls(String)

    var description: String {
        switch self {
        case .tls(let reason): "BFF_REDIS_CA_FILE, BFF_REDIS_CERT_FILE or BFF_REDIS_KEY_FILE could not be loaded: \(reason)"
        }
    }
}
