import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One real `redis-sentinel` on a free loopback port, with its own
/// writable configuration file (Sentinel rewrites it) in its own temporary
/// directory. Killed and its directory removed when the value is released.
/// ``RedisSentinelGroup`` starts these.
public final class RedisSentinel: Sendable {
    /// Debian's `redis-sentinel` (package `redis-sentinel`, installed when missing).
    public static let binary = "/usr/bin/redis-sentinel"

    /// The sentinel's TCP port.
    public let port: UInt16
    private let directory: String
    private let child = FixtureChild()

    /// Starts a sentinel whose configuration is the standard lines (port,
    /// bind, daemonize, directory, log file) followed by `lines`, and waits
    /// until it answers `PING`.
    public static func start(lines: [String]) async throws -> RedisSentinel {
        _ = signal(SIGPIPE, SIG_IGN)
        try await TestSupport.blocking { Result { try ensureInstalled() } }.get()
        var attempt = 0
        while true {
            attempt += 1
            guard let port = LoopbackPort.free() else { throw RedisServerError.noFreePort }
            let directory = NSTemporaryDirectory() + "modgud-sentinel-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let sentinel = RedisSentinel(port: port, directory: directory)
            let configuration = ["port \(port)", "bind 127.0.0.1", "daemonize no", "protected-mode no",
                                 "dir \(directory)", "logfile \(directory)/sentinel.log"] + lines
            try (configuration.joined(separator: "\n") + "\n").write(toFile: directory + "/sentinel.conf", atomically: true, encoding: .utf8)
            do {
                try await sentinel.child.launch([binary, directory + "/sentinel.conf"], port: port,
                                                log: directory + "/sentinel.log")
                return sentinel
            } catch RedisServerError.didNotStart(let log) where log.contains("Address already in use") && attempt < 5 {
                continue
            }
        }
    }

    private init(port: UInt16, directory: String) {
        self.port = port
        self.directory = directory
    }

    deinit {
        child.killAtOnce()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Whether the process runs.
    public var isRunning: Bool { child.isRunning }

    /// Kills the sentinel with SIGKILL and waits for it.
    public func kill() async { await child.end(signal: SIGKILL) }

    private static func ensureInstalled() throws {
        if FileManager.default.isExecutableFile(atPath: binary) { return }
        try AptGet.install("redis-sentinel")
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw RedisServerError.notInstalled }
    }
}
