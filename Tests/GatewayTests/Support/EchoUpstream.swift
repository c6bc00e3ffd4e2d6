import Configuration
import Core
import HTTP
import Synchronization
import System
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An API behind the gateway's proxy, on a loopback port: it records every
/// request it gets and answers by the path segment after the route's base
/// (`/base/echo`, `/base/status/429`, …):
///
/// - `echo` (and any unknown path): 200 JSON of what arrived (method,
///   target, fields, body length), with custom response fields;
/// - `status/<n>`: `n` with `Retry-After: 7`, `RateLimit` fields and a body;
/// - `big/<n>`: a streamed body of `n` patterned bytes (Content-Length);
/// - `slow`: answers only when released or when the upstream stops (or after 60 s);
/// - `set-cookie`: cookies named like the gateway's and one of its own;
/// - `upload`: reads the streamed body, answers its length and checksum.
final class EchoUpstream: Sendable {
    /// One request as the upstream saw it.
    struct Seen: Sendable {
        var method: String
        var target: String
        var headers: HTTPHeaders
        /// Body bytes received (all of them, unless `bodyComplete` is false).
        var bodyBytes: Int
        /// The body itself, for `echo` (up to 1 MiB).
        var body: [UInt8]
        /// Whether the body arrived to its end.
        var bodyComplete: Bool

        func header(_ name: String) -> String? { headers[name] }
        func values(_ name: String) -> [String] { headers.values(name) }
        var bearer: String? {
            guard let value = headers["Authorization"], value.hasPrefix("Bearer ") else { return nil }
            return String(value.dropFirst("Bearer ".count))
        }
    }

    private let seen = Mutex<[Seen]>([])
    private let active = Atomic<Int>(0)
    private let released = Atomic<Bool>(false)
    private let server = Mutex<LoopbackServer?>(nil)

    static let piece = (0..<(64 * 1024)).map { UInt8($0 % 251) }
    /// The `RateLimit` field `status/<n>` answers with.
    static let rateLimitField = "\"api\";r=0;t=7"
    static let statusBody = Array(#"{"title":"slow down","detail":"try again in 7 seconds"}"#.utf8)

    private init() {}

    static func start() async throws -> EchoUpstream {
        let upstream = EchoUpstream()
        let server = try await LoopbackServer.launch(loops: 1, name: "echo-upstream", configure: { _ in }) { request in
            await upstream.respond(request)
        }
        upstream.server.withLock { $0 = server }
        return upstream
    }

    var port: UInt16 { server.withLock { $0!.port } }

    /// `http://127.0.0.1:<port><path>` as a route's upstream.
    func url(_ path: String) -> HTTPURL { HTTPURL("http://127.0.0.1:\(port)\(path)")! }

    /// Lets every `slow` request (and any later one) answer now.
    func release() {
        released.store(true, ordering: .relaxed)
    }

    func stop() async {
        released.store(true, ordering: .relaxed)
        await server.withLock { $0 }?.stop()
    }

    /// Every request so far, in order of arrival (`echo`) or completion (`upload`).
    var requests: [Seen] { seen.withLock { $0 } }

    var count: Int { seen.withLock { $0.count } }

    /// Waits until no handler is running (a request the gateway abandoned
    /// has been recorded), for at most `limit`.
    func settle(within limit: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + limit
        while active.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until at least `count` requests were recorded, for at most `limit`.
    func waitFor(count: Int, within limit: Duration = .seconds(10)) async throws -> [Seen] {
        let deadline = ContinuousClock.now + limit
        while self.count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return requests
    }

    // MARK: Answers

    private func respond(_ request: HTTPRequest) async -> HTTPResponse {
        active.add(1, ordering: .relaxed)
        defer { active.subtract(1, ordering: .relaxed) }
        let parts = request.path.split(separator: "/").map(String.init)
        let command = parts.dropFirst().first ?? ""
        let argument = parts.dropFirst(2).first.flatMap { Int($0) }
        switch command {
        case "status":
            record(request, bodyBytes: 0, body: [], complete: true)
            return HTTPResponse(status: HTTPStatus(argument ?? 500),
                                headers: ["Retry-After": "7", "RateLimit": Self.rateLimitField,
                                          "Content-Type": "application/problem+json"],
                                bytes: Self.statusBody)
        case "big":
            record(request, bodyBytes: 0, body: [], complete: true)
            let size = argument ?? 0
            return HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"],
                                body: .stream(length: size) { writer in try await Self.writePattern(size, to: writer) })
        case "slow":
            record(request, bodyBytes: 0, body: [], complete: true)
            // Long enough that no loaded machine's pause lets it answer before a test releases it.
            let deadline = ContinuousClock.now + .seconds(60)
            while !released.load(ordering: .relaxed), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return HTTPResponse(status: .ok, bytes: Array("late".utf8))
        case "set-cookie":
            record(request, bodyBytes: 0, body: [], complete: true)
            var headers = HTTPHeaders()
            headers.add("Set-Cookie", "__Host-bff=evil; Path=/; Secure; HttpOnly")
            headers.add("Set-Cookie", "other=1; Path=/")
            headers.add("Set-Cookie", "__Host-bff-flow=evil; Path=/; Secure")
            headers.add("Clear-Site-Data", "\"cookies\"")
            headers.add("Content-Type", "text/plain")
            return HTTPResponse(status: .ok, headers: headers, bytes: Array("cookies".utf8))
        case "upload":
            var total = 0, sum: UInt64 = 0, complete = true
            do {
                while let piece = try await request.body.next() {
                    total += piece.count
                    for byte in piece { sum &+= UInt64(byte) }
                }
            } catch {
                complete = false
            }
            record(request, bodyBytes: total, body: [], complete: complete)
            return HTTPResponse(status: complete ? .ok : .badRequest, headers: ["Content-Type": "application/json"],
                                bytes: JSON.object(["bytes": .int(Int64(total)), "sum": .int(Int64(sum))]).serialized)
        default:
            var complete = true
            let body: [UInt8]
            do {
                body = try await request.body.collect(upTo: 1 << 20)
            } catch {
                body = []
                complete = false
            }
            let entry = record(request, bodyBytes: body.count, body: body, complete: complete)
            let fields = JSON.array(entry.headers.map { .array([.string($0.name), .string($0.value)]) })
            let answer: JSON = ["method": .string(entry.method), "target": .string(entry.target), "headers": fields,
                                "bodyBytes": .int(Int64(body.count))]
            return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "X-Upstream": "echo",
                                                       "Cache-Control": "private, max-age=5"],
                                bytes: answer.serialized)
        }
    }

    @discardableResult
    private func record(_ request: HTTPRequest, bodyBytes: Int, body: [UInt8], complete: Bool) -> Seen {
        let entry = Seen(method: request.method.rawValue, target: request.head.target, headers: request.headers,
                         bodyBytes: bodyBytes, body: body, bodyComplete: complete)
        seen.withLock { $0.append(entry) }
        return entry
    }

    /// `count` bytes of a repeating 0...250 pattern in 64 KiB pieces.
    static func writePattern(_ count: Int, to writer: any HTTPBodyWriter) async throws {
        var left = count
        while left > 0 {
            let n = min(left, piece.count)
            try await writer.write(n == piece.count ? piece : Array(piece[0..<n]))
            left -= n
        }
    }

    /// The checksum of what `writePattern` produces (and what a pattern
    /// source of the same size uploads).
    static func patternChecksum(_ count: Int) -> UInt64 {
        let perPiece = piece.reduce(UInt64(0)) { $0 &+ UInt64($1) }
        let whole = UInt64(count / piece.count)
        return piece[0..<(count % piece.count)].reduce(perPiece &* whole) { $0 &+ UInt64($1) }
    }
}

/// A loopback port bound but not listening: a connection to it is refused
/// at once, and no other process can take the port while this is open.
final class RefusingPort: Sendable {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            Glibc.close(fd)
            throw SystemError("bind", errno: errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            Glibc.close(fd)
            throw SystemError("getsockname", errno: errno)
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { Glibc.close(fd) }
}
