import Core
import Crypto
import Observability
import Synchronization

/// Everything a running simulator holds, shared by all requests: a few
/// lock-protected stores, each held only for a short, non-blocking
/// critical section (no I/O, no awaiting inside a lock).
final class SimulatorState: Sendable {
    let clock = SimClock()
    let startupConfig: SimulatorConfig
    private let configuration: Mutex<SimulatorConfig>
    let identity = Mutex(IdentityStore())
    let limiter = RateLimiter()
    let mailbox = Mailbox()
    let recorder: RequestRecorder
    let stats = SimulatorStats()
    let faults = FaultInjector()
    /// The RS256 keys: the current signer and the previous, published one.
    let signingKey: SigningKeyRing
    /// Back-channel logout: the outgoing calls and their log.
    let backchannel: BackchannelDelivery
    let logger: Logger
    /// The issuer, fixed once the listener is bound.
    private let issuerURL: Mutex<String>

    init(config: SimulatorConfig, signingKey: RSAPrivateKey, logger: Logger) {
        startupConfig = config
        configuration = Mutex(config)
        recorder = RequestRecorder(capacity: config.requestLogCapacity)
        self.signingKey = SigningKeyRing(signingKey)
        backchannel = BackchannelDelivery(logger: logger)
        self.logger = logger
        issuerURL = Mutex(config.publicURL ?? "http://\(config.listen)")
        seedUsers(config.users)
    }

    /// A snapshot of the configuration.
    var config: SimulatorConfig { configuration.withLock { $0 } }

    func updateConfig(_ change: (inout SimulatorConfig) -> Void) -> SimulatorConfig {
        configuration.withLock { config in
            change(&config)
            return config
        }
    }

    /// The issuer: the configured public URL, else `http://` + the bound address.
    var issuer: String { issuerURL.withLock { $0 } }

    func setIssuer(_ url: String) { issuerURL.withLock { $0 = url } }

    func now() -> Double { clock.now() }

    /// Creates the seeded users; one without a password of its own gets
    /// the realm's default password.
    func seedUsers(_ seeds: [UserSeed]) {
        let now = clock.now()
        let defaultPassword = config.realm.defaultPassword
        identity.withLock { store in
            for var seed in seeds {
                if seed.password == nil { seed.password = defaultPassword }
                store.upsert(seed, now: now)
            }
        }
    }

    /// Forgets everything learned at run time and goes back to the startup
    /// configuration (or keeps the current one).
    func reset(keepConfig: Bool) {
        let config = keepConfig ? self.config : updateConfig { $0 = startupConfig }
        identity.withLock { $0 = IdentityStore() }
        seedUsers(config.users)
        limiter.reset()
        mailbox.reset()
        recorder.reset(capacity: config.requestLogCapacity)
        stats.reset()
        faults.reset()
        backchannel.reset()
        clock.reset()
    }

    /// Delivers a message to the dev mailbox and, unless switched off,
    /// writes it to the log.
    func deliver(_ message: MailMessage, logMail: Bool) {
        let sent = mailbox.deliver(message)
        stats.count("mail", message.kind)
        guard logMail else { return }
        logger.info("mail.sent", ["to": .string(sent.to), "kind": .string(sent.kind),
                                  "code": .string(sent.code ?? ""), "link": .string(sent.link ?? "")])
    }
}
