import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` on a free loopback port, in its own temporary
/// directory, with persistence off (`--save '' --appendonly no`) and
/// `DEBUG` enabled (for `DEBUG SLEEP`). Blocking work (waiting for the
/// process, probing the port) runs on Dispatch threads, never on the
/// cooperative pool. The server is killed and its directory removed when
/// the value is released.
public final class RedisServer: Sendable {
    public static let binary = "/usr/bin/redis-server"

    /// The TCP port, the same across ``restart()``.
    public let port: UInt16
    /// The `requirepass` password, if any.
    public let password: String?
    /// The TLS port, the same across ``restart()``; nil without TLS
    /// (see ``start(tls:requireClientCertificate:password:arguments:)``).
    public let tlsPort: UInt16?
    private let directory: String
    private let arguments: [String]
    private let child = FixtureChild()

    /// Starts a server and waits until it answers `PING`.
    ///
    /// Ignores `SIGPIPE` in the test process, as the gateway's `main` does
    /// in the product: OpenSSL writes with `write(2)`, and a test that stops
    /// the server would otherwise end the whole test run.
    public static func start(password: String? = nil, arguments: [String] = []) async throws -> RedisServer {
        try await start(password: password, arguments: arguments, tls: nil)
    }

    /// Starts a server, with a TLS port too when `tls` is given (see
    /// RedisServer+TLS.swift), and waits until it answers `PING` on the
    /// plain port.
    static func start(password: String?, arguments: [String], tls: TLSSettings?) async throws -> RedisServer {
        _ = signal(SIGPIPE, SIG_IGN)
        try await blocking { try ensureInstalled() }
        // Another process may take the port between the check and the bind:
        // try a few ports before giving up.
        var attempt = 0
        while true {
            attempt += 1
            guard let port = LoopbackPort.free() else { throw RedisServerError.noFreePort }
            var tlsPort: UInt16?
            var serverArguments = arguments
            if let tls {
                guard let free = LoopbackPort.free() else { throw RedisServerError.noFreePort }
                tlsPort = free
                serverArguments = tls.arguments(port: free) + arguments
            }
            let directory = NSTemporaryDirectory() + "modgud-redis-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = RedisServer(port: port, tlsPort: tlsPort, password: password, directory: directory, arguments: serverArguments)
            do {
                try await server.launch()
                return server
            } catch RedisServerError.didNotStart(let log) where log.contains("Address already in use") && attempt < 5 {
                continue
            }
        }
    }

    private init(port: UInt16, tlsPort: UInt16?, password: String?, directory: String, arguments: [String]) {
        self.port = port
        self.tlsPort = tlsPort
        self.password = password
        self.directory = directory
        self.arguments = arguments
    }

    deinit {
        child.killAtOnce()
        try? FileManager.default.removeItem(atPath: directory)
    }

    public var isRunning: Bool { child.isRunning }

    /// Stops the server with SIGTERM (it closes its clients) and waits for it.
    public func stop() async { await child.end(signal: SIGTERM) }

    /// Kills the server with SIGKILL (the kernel closes its sockets) and waits.
    public func kill() async { await child.end(signal: SIGKILL) }

    /// Starts the server again on the same port (data is not kept).
    public func restart() async throws {
        await stop()
        try await launch()
    }

    private func launch() async throws {
        var argv = [Self.binary, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--dir", directory, "--logfile", directory + "/redis.log", "--daemonize", "no",
                    "--enable-debug-command", "yes"]
        if let password { argv += ["--requirepass", password] }
        argv += arguments
        try await child.launch(argv, port: port, log: directory + "/redis.log")
    }

    // MARK: Helpers

    private static func ensureInstalled() throws {
        if FileManager.default.isExecutableFile(atPath: binary) { return }
        try AptGet.install("redis-server")
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw RedisServerError.notInstalled }
    }

    /// Connects and sends `PING` until the server answers (`+PONG`, or
    /// `-NOAUTH` when it wants a password).
    static func waitForPing(port: UInt16, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            switch RedisControl.call(port: port, ["PING"]) {
            case .simple("PONG"): return true
            case .error(let text) where text.hasPrefix("NOAUTH"): return true
            default: break
            }
            usleep(10_000)
        }
        return false
    }

    /// Runs blocking work on a new serial queue. Serial queues run on
    /// libdispatch's overcommitting pool, which adds a thread when one
    /// blocks; `DispatchQueue.global()` is as wide as the cores and, on
    /// Linux, shares its threads with Swift's cooperative pool, so blocking
    /// there stalls every task in the process.
    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "redis-server.blocking").async { continuation.resume(with: Result { try body() }) }
        }
    }
}

public enum RedisServerError: Error {
    case notInstalled
    case spawnFailed(errno: Int32)
    case noFreePort
    case didNotStart(log: String)
}

/// The process of a Redis fixture (a server or a sentinel) while it runs:
/// started by ``launch(_:port:log:)``, ended by ``end(signal:)``, killed by
/// its owner's `deinit` through ``killAtOnce()``.
final class FixtureChild: Sendable {
    private struct Running: Sendable {
        let pid: Int32
        let exit: ExitSignal
    }

    private let running = Mutex<Running?>(nil)

    var isRunning: Bool { running.withLock { $0 != nil } }

    /// Spawns `argv` and waits until it answers `PING` on `port`; when it
    /// does not within 10 s, kills it and throws with the file `log`.
    func launch(_ argv: [String], port: UInt16, log: String) async throws {
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(argv)
        } catch {
            throw RedisServerError.spawnFailed(errno: error.errno)
        }
        let exit = ExitSignal()
        ChildProcess.reap(pid) { exit.fire() }
        running.withLock { $0 = Running(pid: pid, exit: exit) }
        let answered = await TestSupport.blocking { RedisServer.waitForPing(port: port, timeout: 10) }
        guard answered else {
            await end(signal: SIGKILL)
            throw RedisServerError.didNotStart(log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
    }

    /// Sends `signal` and waits for the process to end; nothing when none runs.
    func end(signal: Int32) async {
        guard let child = running.withLock({ child in defer { child = nil }; return child }) else { return }
        Glibc.kill(child.pid, signal)
        await child.exit.wait()
    }

    /// SIGKILL without waiting, for an owner being released.
    func killAtOnce() {
        running.withLock { child in
            if let child { Glibc.kill(child.pid, SIGKILL) }
        }
    }
}

/// Fired once by the process's termination handler; waiters resume then
/// (or at once when it has already fired).
final class ExitSignal: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }
}
