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

    // The timeout tests run on a manual clock: `advance` moves the loops'
    // time and runs the deadline sweep, so nothing waits for real time.

    @Test func slowHeadGets408() async throws {
        let clock = ManualLoopClock()
        let server = try await TestServer.start(clock: clock, configure: { $0.headerTimeout = .milliseconds(200) }) { _ in .text("ok") }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n")
        await server.advance(by: .milliseconds(150))
        #expect(client.isOpenNow, "within the header timeout")
        await server.advance(by: .milliseconds(100))
        let response = await client.readResponses(1).first
        #expect(response?.status == 408)
        #expect(await client.isClosedByPeer())
        await server.stop()
    }

    @Test func silentConnectionIsClosedAfterTheHeaderTimeout() async throws {
        let clock = ManualLoopClock()
        let server = try await TestServer.start(clock: clock, configure: { $0.headerTimeout = .milliseconds(150) }) { _ in .text("ok") }
        let client = try server.client()
        await server.advance(by: .milliseconds(100))
        #expect(client.isOpenNow, "within the header timeout")
        await server.advance(by: .milliseconds(100))
        #expect(await client.isClosedByPeer())
        #expect(server.server.stats.timeouts.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    /// After a full request, half of a pipelined head waits: the header
    /// timeout runs for it (408), not the longer idle timeout.
    @Test func pipelinedPartialHeadGets408AfterTheHeaderTimeout() async throws {
        let clock = ManualLoopClock()
        let server = try await TestServer.start(clock: clock, configure: {
            $0.headerTimeout = .milliseconds(200)
            $0.idleTimeout = .seconds(30)
        }) { _ in .text("ok") }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\nHo")
        #expect(await client.readResponses(1).first?.status == 200)
        await server.advance(by: .milliseconds(250))
        let responses = await client.readResponses(1)
        #expect(responses.map(\.status) == [408], "the header timeout, not the 30 s idle timeout")
        await server.stop()
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        let clock = ManualLoopClock()
        let server = try await TestServer.start(clock: clock, configure: { $0.idleTimeout = .milliseconds(150) }) { _ in .text("ok") }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.status == 200)
        await server.advance(by: .milliseconds(100))
        #expect(client.isOpenNow, "within the idle timeout")
        await server.advance(by: .milliseconds(100))
        #expect(await client.isClosedByPeer())
        #expect(server.server.stats.timeouts.load(ordering: .relaxed) == 0, "no answer owed: not a timeout")
        await server.stop()
    }

    @Test func stalledBodyGets408() async throws {
        let clock = ManualLoopClock()
        let server = try await TestServer.start(clock: clock, configure: { $0.bodyTimeout = .milliseconds(200) }) { request in
            do {
                _ = try await request.body.collect(upTo: 100)
                return .text("complete")
            } catch {
                return .text("\(error)", status: .badRequest)
            }
        }
        let client = try server.client()
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
        // The handler's reader waits for the rest once it has run.
        await server.eventually { server.server.stats.requests.load(ordering: .relaxed) == 1 }
        await server.advance(by: .milliseconds(150))
        #expect(client.isOpenNow, "within the body timeout")
        // The reader may first ask after the clock moved: its gap counts from then.
        await server.eventually {
            await server.advance(by: .milliseconds(200))
            return server.server.stats.timeouts.load(ordering: .relaxed) == 1
        }
        let response = await client.readResponses(1).first
        #expect(response?.status == 408)
        await server.stop()
    }

    @Test func stalledReaderIsCutOffByTheWriteTimeout() async throws {
        let clock = ManualLoopClock()
        let server = try await TestServer.start(clock: clock, configure: { $0.writeTimeout = .milliseconds(200) }) { _ in
            HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                let piece = [UInt8](repeating: 0x61, count: 256 * 1024)
                for _ in 0..<400 { try await writer.write(piece) } // 100 MB the client never reads
            })
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        // Once the socket is full, the write timeout runs from the block.
        await server.eventually {
            await server.advance(by: .milliseconds(250))
            return server.server.stats.timeouts.load(ordering: .relaxed) == 1
        }
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
        third.setTimeout(30) // accepted now: however long a loaded machine takes
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
