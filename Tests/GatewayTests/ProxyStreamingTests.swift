import Testing
import Configuration
import Core
import HTTP
import HTTPClient
import Synchronization
import System
@testable import Gateway
#if canImport(Glibc)
import Glibc
#endif

/// 100 MB each way through the API proxy, with the test's own client
/// streaming too, so nothing in this process ever holds the whole body.
/// Runs in the serial pass (Tests/run): it measures the process's memory.
@Suite(.serialized) struct ProxyStreamingTests {
    static let size = 100 * 1_000_000
    /// What RSS may grow by while 100 MB pass through the client, the
    /// gateway and the upstream, all in this process.
    static let growthLimit = 30_000_000

    @Test func downloadOf100MBThroughTheGatewayStaysInBoundedMemory() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream)
        let headers = try await Self.signedInHeaders(harness)
        try await Self.withClient { client in
            let before = residentBytes()
            var peakRSS = before
            let response = try await client.stream(
                HTTPClientRequest(url: "http://127.0.0.1:\(harness.port)/files/big/\(Self.size)", headers: headers), body: nil)
            #expect(response.status == .ok)
            #expect(response.headers["Content-Length"] == String(Self.size), "the upstream's length is relayed")
            var total = 0, sum: UInt64 = 0, pieces = 0
            for try await piece in response.body {
                total += piece.count
                for byte in piece { sum &+= UInt64(byte) }
                pieces += 1
                if pieces % 64 == 0 { peakRSS = max(peakRSS, residentBytes()) }
                await Task.yield() // a debug-build checksum is slow: share the pool
            }
            peakRSS = max(peakRSS, residentBytes())
            #expect(total == Self.size)
            #expect(sum == EchoUpstream.patternChecksum(Self.size))
            let proxy = harness.service.upstreams
            let proxyPeak = proxy.stats.streamBufferedBytesPeak.load(ordering: .relaxed)
            let clientPeak = client.stats.streamBufferedBytesPeak.load(ordering: .relaxed)
            print("proxy download: gateway peak buffered \(proxyPeak) B, client peak \(clientPeak) B, "
                  + "peak RSS growth \((peakRSS - before) / 1_000_000) MB")
            #expect(proxyPeak > 0, "the gateway streamed through its buffer")
            #expect(proxyPeak <= proxy.configuration.streamBufferBytes + 256 * 1024)
            #expect(clientPeak <= client.configuration.streamBufferBytes + 256 * 1024)
            #expect(peakRSS - before < Self.growthLimit)
            #expect(proxy.stats.streamBufferedBytes.load(ordering: .relaxed) == 0)
        }
        let seen = upstream.requests
        #expect(seen.map(\.target) == ["/base/big/\(Self.size)"])
        #expect(seen.first?.bearer != nil, "a user route: the upstream got the session's token")
        await harness.stop()
        await upstream.stop()
    }

    @Test func uploadOf100MBThroughTheGatewayStaysInBoundedMemory() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream)
        var headers = try await Self.signedInHeaders(harness)
        headers.add("Content-Type", "application/octet-stream")
        try await Self.withClient { client in
            let before = residentBytes()
            let peakRSS = Atomic<Int>(before)
            let response = try await client.stream(
                HTTPClientRequest(method: .put, url: "http://127.0.0.1:\(harness.port)/files/upload", headers: headers),
                body: Self.patternSource(Self.size) { peakRSS.max(residentBytes()) })
            #expect(response.status == .ok)
            let answer = try JSON.parse(try await response.body.collect(upTo: 10_000))
            #expect(answer["bytes"]?.intValue == Self.size, "the upstream read every byte")
            #expect(answer["sum"]?.intValue.map(UInt64.init) == EchoUpstream.patternChecksum(Self.size))
            peakRSS.max(residentBytes())
            let growth = peakRSS.load(ordering: .relaxed) - before
            let proxy = harness.service.upstreams
            let proxyPeak = proxy.stats.streamBufferedBytesPeak.load(ordering: .relaxed)
            let clientPeak = client.stats.streamBufferedBytesPeak.load(ordering: .relaxed)
            print("proxy upload: gateway peak buffered \(proxyPeak) B, client peak \(clientPeak) B, "
                  + "peak RSS growth \(growth / 1_000_000) MB")
            #expect(proxyPeak > 0, "the gateway streamed through its buffer")
            #expect(proxyPeak <= proxy.configuration.streamBufferBytes + 128 * 1024)
            #expect(clientPeak <= client.configuration.streamBufferBytes + 128 * 1024)
            #expect(growth < Self.growthLimit)
        }
        let seen = try #require(upstream.requests.first)
        #expect(upstream.count == 1)
        #expect(seen.method == "PUT")
        #expect(seen.bodyBytes == Self.size && seen.bodyComplete)
        #expect(seen.header("Content-Length") == String(Self.size), "the declared length is passed on")
        #expect(seen.bearer != nil)
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Helpers

    static func start(_ upstream: EchoUpstream) async throws -> GatewayHarness {
        try await GatewayHarness.start(gateway: {
            // 100 MB is past BFF_PROXY_MAX_BODY_BYTES's default: the route sets its own limit.
            $0.routes = [RouteConfig(prefix: "/files/", upstream: upstream.url("/base/"), token: .user,
                                     maxBodyBytes: 200_000_000)]
        })
    }

    /// Signs a browser in; the fields its page would send to an API route.
    static func signedInHeaders(_ harness: GatewayHarness) async throws -> HTTPHeaders {
        let browser = harness.browser()
        let signedIn = try await SignInFlowTests.signInWithCode(harness, browser)
        #expect(signedIn.status == 200)
        let cookie = try #require(browser.cookies["__Host-bff"])
        return ["Cookie": "__Host-bff=\(cookie)", "X-CSRF": "1", "Origin": browser.origin]
    }

    /// The test's own streaming client on its own loop, shut down after `body`.
    static func withClient(_ body: (HTTPClient) async throws -> Void) async throws {
        let group = try EventLoopGroup(loops: 1, name: "proxy-stream-client")
        let client = try HTTPClient(configuration: HTTPClientConfiguration(timeout: .seconds(30)), loops: group.loops)
        do {
            try await body(client)
        } catch {
            await client.shutdown()
            group.shutdown()
            throw error
        }
        await client.shutdown()
        group.shutdown()
    }

    /// `size` patterned bytes in 64 KiB pieces, with a declared length;
    /// `sample` runs every 64 pieces.
    static func patternSource(_ size: Int, sample: @escaping @Sendable () -> Void) -> HTTPClientRequestBody {
        let produced = Atomic<Int>(0)
        let piece = EchoUpstream.piece
        return HTTPClientRequestBody(length: size) {
            let sent = produced.load(ordering: .relaxed)
            guard sent < size else { return nil }
            let count = min(piece.count, size - sent)
            produced.add(count, ordering: .relaxed)
            if (sent / piece.count) % 64 == 0 { sample() }
            return count == piece.count ? piece : Array(piece[0..<count])
        }
    }
}

fileprivate extension Atomic where Value == Int {
    /// Raises the value to `candidate` if that is larger.
    func max(_ candidate: Int) {
        var current = load(ordering: .relaxed)
        while candidate > current {
            let (exchanged, original) = compareExchange(expected: current, desired: candidate, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

/// Resident memory of this process in bytes (from /proc/self/statm).
private func residentBytes() -> Int {
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
