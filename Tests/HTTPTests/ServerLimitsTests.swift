import Foundation
import Synchronization
import Testing
import HTTP
import System
import TestSupport

@Suite("HTTP server limits, timeouts and shutdown")
struct ServerLimitsTests {
    /// Parser refusals, over a real socket: status, then the server closes.
    @Test(arguments: [
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\nhello", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: {17000 bytes}\r\n\r\n", 431),
    ])
    func refusesOverTheWire(request: String, status: Int) async throws {
        let server = try await TestServer.start { _ in .text("should not run") }
        let client = try server.client()
        await client.send(request.replacingOccurrences(of: "{17000 bytes}", with: String(repeating: "a", count: 17000)))
        let response = await client.readResponses(1).first
        #expect(response?.status == status)
        #expect(response?.header("Connection") == "close")
        #expect(response?.header("Content-Type") == "application/json")
        #expect(await client.isClosedByPeer())
        #expect(server.server.stats.rejectedRequests.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    @Test func slowHeadGets408() async throws {
        let server = try await TestServer.start(configure: { $0.headerTimeout = .milliseconds(200) }) { _ in .text("ok") }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n")
        let response = await client.readResponses(1).first
        #expect(response?.status == 408)
        #expect(await client.isClosedByPeer())
        await server.stop()
    }

    @Test func silentConnectionIsClosedAfterTheHeaderTimeout() async throws {
        let server = try await TestServer.start(configure: { $0.headerTimeout = .milliseconds(150) }) { _ in .text("ok") }
        let client = try server.client()
        let start = ContinuousClock.now
        #expect(await client.isClosedByPeer())
        #expect(ContinuousClock.now - start < .seconds(2))
        await server.stop()
    }

    /// After a full request, half of a pipelined head waits: the header
    /// timeout runs for it (408), not the longer idle timeout.
    @Test func pipelinedPartialHeadGets408AfterTheHeaderTimeout() async throws {
        let server = try await TestServer.start(configure: {
            $0.headerTimeout = .milliseconds(200)
            $0.idleTimeout = .seconds(30)
        }) { _ in .text("ok") }
        let client = try server.client()
        let start = ContinuousClock.now
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\nHo")
        let responses = await client.readResponses(2)
        #expect(responses.map(\.status) == [200, 408])
        #expect(ContinuousClock.now - start < .seconds(4), "the header timeout, not the 30 s idle timeout")
        await server.stop()
    }

    /// A client that half-closes while its request is in flight and reading
    /// is paused (pipelined bytes piled up): the loop must not spin on the
    /// hang-up event until the answer is ready.
    @Test func aHalfClosedClientDoesNotSpinTheLoop() async throws {
        let server = try await LoopbackServer.launch(loops: 1, name: "spin-probe", configure: { _ in }) { _ in
            try? await Task.sleep(for: .seconds(1))
            return .text("slow")
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n" + String(repeating: "x", count: 17 * 1024))
        try await Task.sleep(for: .milliseconds(100))   // read and paused
        client.shutdownWrite()
        let before = Self.threadCPU(named: "spin-probe")
        try await Task.sleep(for: .milliseconds(800))
        let used = Self.threadCPU(named: "spin-probe") - before
        #expect(used < 0.2, "the loop thread's CPU seconds while the handler slept: \(used)")
        #expect(await client.readResponses(1).first?.bodyText == "slow", "the answer still arrives")
        await server.stop()
    }

    /// CPU seconds (user + system) of this process's threads named `name`.
    static func threadCPU(named name: String) -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var ticks = 0
        for task in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.hasPrefix(name), let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after the name: state is the 3rd field, utime the 14th, stime the 15th.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            ticks += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        let server = try await TestServer.start(configure: { $0.idleTimeout = .milliseconds(150) }) { _ in .text("ok") }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.status == 200)
        #expect(await client.isClosedByPeer())
        await server.stop()
    }

    @Test func stalledBodyGets408() async throws {
        let server = try await TestServer.start(configure: { $0.bodyTimeout = .milliseconds(200) }) { request in
            do {
                _ = try await request.body.collect(upTo: 100)
                return .text("complete")
            } catch {
                return .text("\(error)", status: .badRequest)
            }
        }
        let client = try server.client()
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
        let response = await client.readResponses(1).first
        #expect(response?.status == 408)
        await server.stop()
    }

    @Test func stalledReaderIsCutOffByTheWriteTimeout() async throws {
        let server = try await TestServer.start(configure: { $0.writeTimeout = .milliseconds(200) }) { _ in
            HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                let piece = [UInt8](repeating: 0x61, count: 256 * 1024)
                for _ in 0..<400 { try await writer.write(piece) } // 100 MB the client never reads
            })
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        try await Task.sleep(for: .milliseconds(800))
        #expect(server.server.stats.timeouts.load(ordering: .relaxed) == 1)
        #expect(server.server.stats.openConnections.load(ordering: .relaxed) == 0)
        await server.stop()
    }

    @Test func connectionCapHoldsNewcomersUntilOneCloses() async throws {
        let server = try await TestServer.start(loops: 1, configure: { $0.maxConnections = 2 }) { _ in .text("ok") }
        let first = try server.client()
        let second = try server.client()
        await first.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        await second.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await first.readResponses(1).count == 1)
        #expect(await second.readResponses(1).count == 1)
        let third = try RawClient(port: server.port, timeout: 0.3)
        await third.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await third.readResponses(1).isEmpty) // waits in the backlog
        #expect(server.server.stats.openConnections.load(ordering: .relaxed) == 2)
        await first.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(await first.readResponses(1).count == 1)
        let late = await third.readResponses(1)
        #expect(late.first?.status == 200)
        await server.stop()
    }

    @Test func gracefulShutdownFinishesInFlightAndRefusesNewConnections() async throws {
        let group = try EventLoopGroup(loops: 2)
        let release = Atomic<Bool>(false)
        let server = HTTPServer(configuration: HTTPServerConfiguration(address: SocketAddress(ip: .v4(0x7F00_0001), port: 0)),
                                loops: group.loops) { _ in
            // In flight until the test has seen the listeners close.
            while !release.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(5)) }
            return .text("finished")
        }
        try await server.start()
        let port = server.localAddress!.port
        let busy = try RawClient(port: port)
        let idle = try RawClient(port: port)
        await busy.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        while server.stats.requests.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        async let shutdown: Void = server.shutdown(gracePeriod: .seconds(10))
        var refused = false
        for _ in 0..<400 where !refused {
            if (try? RawClient(port: port)) == nil { refused = true } else { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(refused, "new connections are refused once shutdown begins")
        #expect(await idle.isClosedByPeer())
        release.store(true, ordering: .releasing)
        let response = await busy.readResponses(1).first
        #expect(response?.bodyText == "finished")
        #expect(response?.header("Connection") == "close")
        await shutdown
        group.shutdown()
    }
}
