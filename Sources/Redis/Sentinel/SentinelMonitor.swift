import Core
import Synchronization
import System

/// The master of a Sentinel deployment, for every connection of a process:
/// connections ask ``lookUp(on:completion:)`` before each connect, and
/// learn through ``observe(_:)`` when the sentinels announce a failover
/// (`+switch-master`), which each sentinel publishes to its subscribers.
/// One subscriber per sentinel listens, so the news arrives while any
/// sentinel is up.
public final class SentinelMonitor: Sendable {
    /// The sentinels and the master's name.
    public let settings: SentinelSettings
    private let subscribers: [RedisSubscriber]
    private let observers = Mutex<[UInt64: @Sendable (RedisAddress) -> Void]>([:])
    private let nextObserver = Atomic<UInt64>(1)
    private let listeners = Mutex<[Task<Void, Never>]>([])

    /// Watches the sentinels from `loop`; nothing happens until ``start()``.
    public init(settings: SentinelSettings, loop: EventLoop) {
        self.settings = settings
        subscribers = settings.sentinels.map { sentinel in
            RedisSubscriber(configuration: RedisConfiguration(host: sentinel.host, port: sentinel.port, username: settings.username,
                                                              password: settings.password, security: settings.security,
                                                              connectTimeout: settings.timeout),
                            loop: loop)
        }
    }

    /// Subscribes to `+switch-master` on every sentinel.
    public func start() {
        let channel = Array("+switch-master".utf8)
        for subscriber in subscribers {
            subscriber.start()
            let task = Task { [self] in
                for await message in await subscriber.subscribe(channel) { announce(message) }
            }
            listeners.withLock { $0.append(task) }
        }
    }

    /// Stops listening.
    public func close() async {
        for subscriber in subscribers { await subscriber.close() }
        for task in listeners.withLock({ $0 }) { task.cancel() }
    }

    /// Asks the sentinels where the master is; `completion` runs on `loop`.
    func lookUp(on loop: EventLoop, completion: @escaping (Result<RedisAddress, RedisConnectionFailure>) -> Void) {
        SentinelQuery.run(settings, on: loop, completion: completion)
    }

    /// Calls `observer` with the new master's address after each failover
    /// of this master; returns the id to pass to ``stopObserving(_:)``.
    func observe(_ observer: @escaping @Sendable (RedisAddress) -> Void) -> UInt64 {
        let id = nextObserver.add(1, ordering: .relaxed).oldValue
        observers.withLock { $0[id] = observer }
        return id
    }

    func stopObserving(_ id: UInt64) {
        _ = observers.withLock { $0.removeValue(forKey: id) }
    }

    /// `<master name> <old ip> <old port> <new ip> <new port>`.
    private func announce(_ message: [UInt8]) {
        let parts = message.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 5, parts[0] == settings.masterName, let port = Int(parts[4]), (1...65535).contains(port) else { return }
        let address = RedisAddress(host: parts[3], port: port)
        for observer in observers.withLock({ Array($0.values) }) { observer(address) }
    }
}
