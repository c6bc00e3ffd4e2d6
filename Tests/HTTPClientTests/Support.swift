import Testing
import Core
import HTTP
import HTTPClient
import System
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The upstream the client tests call: one loop and the test routes unless
/// a test asks otherwise.
typealias Upstream = LoopbackServer

extension LoopbackServer {
    static func start(loops: Int = 1, configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                      responder: @escaping HTTPResponder = Routes.respond) async throws -> LoopbackServer {
        try await launch(loops: loops, name: "upstream", configure: configure, responder: responder)
    }
}

/// A client on its own loops (reading `clock`), shut down after `body`.
@discardableResult
func withClient<T>(loops: Int = 2, configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
                   clock: any LoopClock = MonotonicClock(),
                   _ body: (HTTPClient, EventLoopGroup) async throws -> T) async throws -> T {
    let group = try EventLoopGroup(loops: loops, name: "client", clock: clock)
    let client = try HTTPClient(configuration: configuration, loops: group.loops)
    do {
        let result = try await body(client, group)
        await client.shutdown()
        group.shutdown()
        return result
    } catch {
        await client.shutdown()
        group.shutdown()
        throw error
    }
}

/// The upstream's routes, by path.
enum Routes {
    @Sendable nonisolated(nonsending) static func respond(_ request: HTTPRequest) async -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        switch parts.first {
        case "echo":
            // The request's method, fields and body, one per line.
            let body = (try? await request.body.collect(upTo: 1 << 20)) ?? []
            var text = "\(request.method.rawValue) \(request.head.target)\n"
            for field in request.headers { text += "\(field.name): \(field.value)\n" }
            text += "\n" + String(decoding: body, as: UTF8.self)
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], bytes: Array(text.utf8))
        case "limited":
            return HTTPResponse(status: .tooManyRequests, headers: HTTPHeaders(limitedFields.map {
                HTTPField(name: $0.0, value: $0.1)
            }), bytes: Array("{\"title\":\"slow down\"}".utf8))
        case "status":
            return HTTPResponse(status: HTTPStatus(Int(parts.dropFirst().first ?? "") ?? 500), bytes: Array("s".utf8))
        case "redirect":
            return HTTPResponse(status: .found, headers: ["Location": "/echo"], bytes: [])
        case "sleep":
            try? await Task.sleep(for: .milliseconds(Int(parts.dropFirst().first ?? "") ?? 1000))
            return HTTPResponse(status: .ok, bytes: Array("late".utf8))
        case "bytes":
            let count = Int(parts.dropFirst().first ?? "") ?? 0
            return HTTPResponse(status: .ok, bytes: [UInt8](repeating: 0x62, count: count))
        case "chunked":
            let count = Int(parts.dropFirst().first ?? "") ?? 0
            return HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                try await writePattern(count, to: writer)
            })
        case "download":
            let count = Int(parts.dropFirst().first ?? "") ?? 0
            return HTTPResponse(status: .ok, body: .stream(length: count) { writer in
                try await writePattern(count, to: writer)
            })
        case "upload":
            // Reads the body piece by piece; answers its length and checksum.
            var total = 0, sum: UInt64 = 0
            do {
                while let piece = try await request.body.next() {
                    total += piece.count
                    for byte in piece { sum = sum &+ UInt64(byte) }
                }
            } catch {
                return HTTPResponse(status: .badRequest, bytes: [])
            }
            return HTTPResponse(status: .ok, bytes: Array("\(total) \(sum)".utf8))
        case "ignore-body":
            // Never reads the body; answers much later.
            try? await Task.sleep(for: .seconds(3))
            return HTTPResponse(status: .ok, bytes: [])
        default:
            return HTTPResponse(status: .notFound, bytes: Array("no route".utf8))
        }
    }

    /// `count` bytes of a repeating 0...250 pattern in 64 KiB pieces.
    static func writePattern(_ count: Int, to writer: any HTTPBodyWriter) async throws {
        let piece = (0..<(64 * 1024)).map { UInt8($0 % 251) }
        var left = count
        while left > 0 {
            let n = min(left, piece.count)
            try await writer.write(n == piece.count ? piece : Array(piece[0..<n]))
            left -= n
        }
    }
}

/// The fields `/limited` answers with, in order.
let limitedFields: [(String, String)] = [
    ("Retry-After", "7"), ("RateLimit-Policy", "\"otp\";q=5;w=60"), ("Set-Cookie", "a=1"),
    ("RateLimit", "\"otp\";r=0;t=7"), ("Set-Cookie", "b=2; Path=/"), ("X-Empty", ""),
    ("Content-Type", "application/problem+json"),
]

/// The patterned bytes `Routes.writePattern` produces, as a checksum.
func patternChecksum(_ count: Int) -> UInt64 {
    var sum: UInt64 = 0
    for i in 0..<count { sum &+= UInt64((i % (64 * 1024)) % 251) }
    return sum
}

/// Resident memory of this process in bytes (from /proc/self/statm).
func residentBytes() -> Int {
    let fd = open("/proc/self/statm", O_RDONLY)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = read(fd, &buffer, buffer.count)
    guard count > 0 else { return 0 }
    let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

extension HTTPClientResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Runs memory-hungry tests one at a time across suites, so one test's
/// allocations never show up in another's RSS figures (suites run in
/// parallel; `.serialized` orders tests only within a suite).
actor HeavyTests {
    static let shared = HeavyTests()
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    static func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await shared.acquire()
        do {
            let result = try await body()
            await shared.release()
            return result
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        if !busy { busy = true; return }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }
}

/// The client's two engines for streams to plain `http` URLs: its own
/// connections, or libcurl (`HTTPClientConfiguration.ownPlainHTTP` off).
/// Suites that hold for both take one as an argument.
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case own, curl

    var testDescription: String { rawValue }

    /// `configuration` with this engine carrying plain-`http` streams.
    func configuration(_ configuration: HTTPClientConfiguration = HTTPClientConfiguration()) -> HTTPClientConfiguration {
        var configuration = configuration
        configuration.ownPlainHTTP = self == .own
        return configuration
    }
}
