import Core
import Dispatch
import Foundation
import HTTP
import ModgudSimulator
import Synchronization
import System
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The refresh race across processes (Tests/GatewayTests/RefreshRaceTests):
/// one real redis-server, the Modgud simulator on a loopback port in this
/// process, a recording upstream API, and `count` built `modgud-bff`
/// processes configured by environment, all sharing the store and Modgud.
final class RaceDeployment: Sendable {
    let group: EventLoopGroup
    let redis: RedisServer
    let simulator: Simulator
    let upstream: RecordingUpstream
    let gateways: [GatewayProcess]

    private init(group: EventLoopGroup, redis: RedisServer, simulator: Simulator, upstream: RecordingUpstream,
                 gateways: [GatewayProcess]) {
        self.group = group
        self.redis = redis
        self.simulator = simulator
        self.upstream = upstream
        self.gateways = gateways
    }

    /// Starts everything and waits until every gateway answers `/readyz`
    /// with 200. `settings` are extra `BFF_*` variables.
    static func start(gateways count: Int, settings: [String: String] = [:],
                      simulator simulate: @Sendable (inout SimulatorConfig) -> Void = { _ in }) async throws -> RaceDeployment {
        let binary = try GatewayProcess.binary()
        let group = try EventLoopGroup(loops: 2, name: "race")
        let redis = try await RedisServer.start()
        let simulator = try Simulator(config: .forTesting(), signingKey: GatewayHarness.signingKey)
        simulator.updateConfig(simulate)
        try await simulator.start(loops: [group.loops[0]])
        let upstream = try await RecordingUpstream.start()
        var environment = [
            "BFF_LISTEN": "127.0.0.1:0", "BFF_ADMIN_LISTEN": "127.0.0.1:0", "BFF_MODGUD_URL": simulator.issuer,
            "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "bff-secret", "BFF_REDIS_URL": "redis://127.0.0.1:\(redis.port)/0",
            "BFF_ROUTES": #"[{"prefix":"/api/","upstream":"http://127.0.0.1:\#(upstream.port)/","token":"user"}]"#,
            "BFF_PUBLIC_ORIGIN": "http://localhost:8080", "BFF_LOG_LEVEL": "info", "BFF_ACCESS_LOG": "false",
            "BFF_LOOPS": "2", "BFF_SHUTDOWN_TIMEOUT_MS": "1000",
        ]
        environment.merge(settings) { $1 }
        let directory = NSTemporaryDirectory() + "modgud-race-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var gateways: [GatewayProcess] = []
        do {
            for index in 0..<count {
                gateways.append(try GatewayProcess.launch(binary: binary, environment: environment,
                                                          logPath: directory + "/gateway-\(index).log"))
            }
            for gateway in gateways { try await gateway.waitUntilReady() }
        } catch {
            for gateway in gateways { await gateway.stop() }
            await upstream.stop()
            await simulator.shutdown(gracePeriod: .milliseconds(200))
            await redis.stop()
            group.shutdown()
            throw error
        }
        return RaceDeployment(group: group, redis: redis, simulator: simulator, upstream: upstream, gateways: gateways)
    }

    func stop() async {
        for gateway in gateways { await gateway.stop() }
        await upstream.stop()
        await simulator.shutdown(gracePeriod: .milliseconds(200))
        await redis.stop()
        group.shutdown()
    }

    /// Each gateway's admin `/metrics` text.
    func metrics() async throws -> [String] {
        var texts: [String] = []
        for gateway in gateways {
            texts.append(try await LoopbackCall.send(port: gateway.adminPort, "GET", "/metrics").bodyText)
        }
        return texts
    }
}

// MARK: - Gateway processes

/// A `modgud-bff` process started with posix_spawn (Foundation's `Process`
/// leaves SIGTERM blocked in the child), its output in `logPath`. Its
/// listeners bind port 0; the ports are read from its `gateway.started`
/// line. Killed with SIGKILL when released while still running.
final class GatewayProcess: Sendable {
    let pid: pid_t
    let logPath: String
    private let exited = Mutex(false)
    private let ports = Mutex<(public: UInt16, admin: UInt16)>((0, 0))

    private init(pid: pid_t, logPath: String) {
        self.pid = pid
        self.logPath = logPath
    }

    deinit {
        if !exited.withLock({ $0 }) { Glibc.kill(pid, SIGKILL) }
    }

    var publicPort: UInt16 { ports.withLock { $0.public } }
    var adminPort: UInt16 { ports.withLock { $0.admin } }
    var hasExited: Bool { exited.withLock { $0 } }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The built `modgud-bff`: `MODGUD_BFF_BINARY`, else next to the test
    /// binary (`<scratch>/debug/`; on Linux `swift test` runs the
    /// `.xctest` file from there), looking a few directories up for bundles.
    static func binary(named name: String = "modgud-bff") throws -> String {
        if let path = ProcessInfo.processInfo.environment["MODGUD_BFF_BINARY"] { return path }
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: running).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw GatewayProcessError.binaryNotFound(near: running)
    }

    static func launch(binary: String, environment: [String: String], logPath: String) throws -> GatewayProcess {
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn([binary], environment: environment, output: logPath)
        } catch {
            throw GatewayProcessError.spawnFailed(errno: error.errno)
        }
        let process = GatewayProcess(pid: pid, logPath: logPath)
        ChildProcess.reap(pid) { [weak process] in process?.exited.withLock { $0 = true } }
        return process
    }

    /// Waits for the `gateway.started` line (the bound ports), then for
    /// `/readyz` to answer 200 (Redis and Modgud reachable).
    func waitUntilReady(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while publicPort == 0 {
            if let started = log.split(separator: "\n").first(where: { $0.contains(#""event":"gateway.started""#) }),
               let json = try? JSON.parse(Array(started.utf8)),
               let listen = json["listen"]?.stringValue.flatMap(Self.port),
               let admin = json["adminListen"]?.stringValue.flatMap(Self.port) {
                ports.withLock { $0 = (listen, admin) }
                break
            }
            try check(deadline)
            try await Task.sleep(for: .milliseconds(20))
        }
        while true {
            if let ready = try? await LoopbackCall.send(port: adminPort, "GET", "/readyz"), ready.status == 200 { return }
            try check(deadline)
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func check(_ deadline: ContinuousClock.Instant) throws {
        if hasExited { throw GatewayProcessError.exited(log: log) }
        if ContinuousClock.now >= deadline { throw GatewayProcessError.notReady(log: log) }
    }

    /// SIGTERM, then SIGKILL when it has not exited within `grace`.
    func stop(grace: Duration = .seconds(10)) async {
        guard !hasExited else { return }
        Glibc.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while !hasExited, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if !hasExited { Glibc.kill(pid, SIGKILL) }
        while !hasExited { try? await Task.sleep(for: .milliseconds(10)) }
    }

    private static func port(_ address: String) -> UInt16? {
        address.split(separator: ":").last.flatMap { UInt16($0) }
    }
}

enum GatewayProcessError: Error {
    case binaryNotFound(near: String)
    case spawnFailed(errno: Int32)
    case exited(log: String)
    case notReady(log: String)
}

// MARK: - Upstream, bursts, probes

/// An upstream API on loopback that answers every request `200 ok` and
/// records its `Authorization` header ("" when there is none).
final class RecordingUpstream: Sendable {
    let server: LoopbackServer
    let log: AuthorizationLog

    private init(server: LoopbackServer, log: AuthorizationLog) {
        self.server = server
        self.log = log
    }

    static func start() async throws -> RecordingUpstream {
        let log = AuthorizationLog()
        let server = try await LoopbackServer.launch(loops: 1, name: "upstream", configure: { _ in }) { request in
            log.append(request.headers["Authorization"] ?? "")
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], bytes: Array("ok".utf8))
        }
        return RecordingUpstream(server: server, log: log)
    }

    var port: UInt16 { server.port }
    var authorizations: [String] { log.all }
    func reset() { log.reset() }
    func stop() async { await server.stop() }
}

final class AuthorizationLog: Sendable {
    private let entries = Mutex<[String]>([])

    func append(_ value: String) { entries.withLock { $0.append(value) } }
    func reset() { entries.withLock { $0.removeAll() } }
    var all: [String] { entries.withLock { $0 } }
}

/// Raw HTTP/1.1 calls on loopback, one connection each, made on threads
/// of their own (a serial queue each, never Dispatch's shared pool, which
/// the cooperative pool of the in-process gateways and every other test
/// uses): some of these calls wait for seconds on purpose.
enum LoopbackCall {
    static func send(port: UInt16, _ method: String, _ path: String, headers: [(String, String)] = [],
                     body: [UInt8] = [], timeout: Double = 30) async throws -> RawResponse {
        let bytes = request(port: port, method, path, headers: headers, body: body)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "loopback-call").async {
                continuation.resume(with: Result {
                    let client = try RawClient(port: port, timeout: timeout)
                    write(bytes, to: client.fd)
                    guard let (response, _) = RawResponse.parse(readToEnd([client.fd], timeout: timeout)[0]) else {
                        throw Browser.BrowserError.noResponse
                    }
                    return response
                })
            }
        }
    }

    /// What a browser of `origin` sends on an API call with the session cookie.
    static func browserHeaders(cookie: String, origin: String = "http://localhost:8080") -> [(String, String)] {
        [("X-CSRF", "1"), ("Origin", origin), ("Cookie", "__Host-bff=" + cookie)]
    }

    static func request(port: UInt16, _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) -> [UInt8] {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: localhost:\(port)", "Connection: close"]
        lines += headers.map { "\($0.0): \($0.1)" }
        if !body.isEmpty || method == "POST" { lines.append("Content-Length: \(body.count)") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
    }

    /// Sends `perPort` browser requests for `path` to each of `ports` at
    /// once: every connection is opened first, then every request written,
    /// and only then are the answers read, so all of them are in the
    /// gateways together. nil: no (complete) answer came within `timeout`.
    ///
    /// All of it runs on one thread of its own, the answers read with
    /// poll(2): blocking reads on Dispatch's shared pool would starve the
    /// cooperative pool the in-process gateway runs on.
    static func burst(_ path: String, cookie: String, ports: [UInt16], perPort: Int,
                      origin: String = "http://localhost:8080", timeout: Double = 60) async throws -> [RawResponse?] {
        let headers = browserHeaders(cookie: cookie, origin: origin)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "burst").async {
                continuation.resume(with: Result {
                    var clients: [RawClient] = []
                    for _ in 0..<perPort {
                        for port in ports {
                            let client = try RawClient(port: port, timeout: timeout)
                            clients.append(client)
                        }
                    }
                    for (index, client) in clients.enumerated() {
                        write(request(port: ports[index % ports.count], "GET", path, headers: headers, body: []), to: client.fd)
                    }
                    return readToEnd(clients.map(\.fd), timeout: timeout).map { RawResponse.parse($0)?.0 }
                })
            }
        }
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// Everything each descriptor receives until its peer closes (or the
    /// timeout), read on the calling thread with poll(2).
    private static func readToEnd(_ fds: [Int32], timeout: Double) -> [[UInt8]] {
        var received = Array(repeating: [UInt8](), count: fds.count)
        var open = Set(fds.indices)
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while !open.isEmpty, Date() < deadline {
            let indices = Array(open)
            var polled = indices.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
            let ready = poll(&polled, nfds_t(polled.count), 100)
            if ready < 0 && errno != EINTR { break }
            for (slot, index) in indices.enumerated() where polled[slot].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { recv(fds[index], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 {
                    received[index].append(contentsOf: buffer[0..<n])
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    open.remove(index)
                }
            }
        }
        return received
    }
}

/// What the simulator knows, asked over HTTP (for what the in-process
/// API does not show: the store's counts and token introspection).
enum ModgudProbe {
    static let basic = ("Authorization", "Basic " + Data("bff:bff-secret".utf8).base64EncodedString())

    /// `GET /dev/stats`.
    static func stats(port: UInt16) async throws -> JSON {
        try JSON.parse(try await LoopbackCall.send(port: port, "GET", "/dev/stats").body)
    }

    /// Families revoked at the simulator so far.
    static func revokedFamilies(port: UInt16) async throws -> Int? {
        try await stats(port: port)["store"]?["revokedFamilies"]?.intValue
    }

    /// `POST /connect/introspect` as the `bff` client.
    static func introspect(port: UInt16, _ token: String) async throws -> JSON {
        let body = Array(("token=" + formEncoded(token)).utf8)
        return try JSON.parse(try await LoopbackCall.send(
            port: port, "POST", "/connect/introspect",
            headers: [basic, ("Content-Type", "application/x-www-form-urlencoded")], body: body).body)
    }

    /// `POST /connect/revoke` as the `bff` client (a refresh token takes its family).
    static func revoke(port: UInt16, _ token: String) async throws -> Int {
        let body = Array(("token=" + formEncoded(token) + "&token_type_hint=refresh_token").utf8)
        return try await LoopbackCall.send(port: port, "POST", "/connect/revoke",
                                           headers: [basic, ("Content-Type", "application/x-www-form-urlencoded")],
                                           body: body).status
    }

    /// The `/connect/token` calls with `grant_type=refresh_token` in the
    /// simulator's request log after `seq`.
    static func refreshCalls(_ simulator: Simulator, since seq: Int) -> [JSON] {
        simulator.requests(since: seq).filter {
            $0["path"]?.stringValue == "/connect/token" && $0["grantType"]?.stringValue == "refresh_token"
        }
    }

    /// A counter of the simulator's `refresh` stats group (0 when never counted).
    static func refreshCount(_ simulator: Simulator, _ name: String) -> Int {
        simulator.stats()["refresh"]?[name]?.intValue ?? 0
    }

    private static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}

/// Sums the samples of `name` in Prometheus text whose labels contain
/// `label` (e.g. `outcome="ok"`); 0 when there is none.
func metricValue(_ text: String, _ name: String, _ label: String? = nil) -> Double {
    var total = 0.0
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        guard line.hasPrefix(name + "{") || line.hasPrefix(name + " ") else { continue }
        if let label, !line.contains(label) { continue }
        if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { total += value }
    }
    return total
}
