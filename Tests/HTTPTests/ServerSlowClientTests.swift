import Foundation
import Synchronization
import Testing
import Core
@testable import HTTP
import System
import TestSupport

/// A slow or greedy client cannot hold the server's resources without
/// end: a body's minimum rate, and the per-address connection cap.
@Suite("HTTP server: slow bodies and the per-address cap")
struct ServerSlowClientTests {
    /// Reads the whole body and answers how many bytes came.
    static let counting: HTTPResponder = { request in
        var total = 0
        do {
            while let piece = try await request.body.next() { total += piece.count }
            return .text("\(total)")
        } catch {
            return .text("\(error)", status: .badRequest)
        }
    }

    /// Each piece comes well within the gaps' timeout, but a trickle falls
    /// behind the minimum rate: 408, and the connection closes. A large
    /// body that keeps up passes, long after the grace is spent. On a
    /// manual clock: each piece is handled before the clock moves on.
    @Test func aTrickledBodyIsRefusedByItsDeadlineWhileAFastLargeBodyPasses() async throws {
        let clock = ManualLoopClock()
        let consumed = ConsumedBytes()
        let server = try await TestServer.start(clock: clock, configure: {
            $0.bodyTimeout = .seconds(5)
            $0.bodyRateGrace = .milliseconds(1500)
            $0.bodyMinRate = 1000
        }, responder: consumed.responder)

        let trickle = try server.client()
        let start = clock.now()
        await trickle.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n")
        // 20 bytes a second: a gap of 50 ms, far below the 5 s timeout.
        for _ in 0..<100 where server.server.stats.slowBodies.load(ordering: .relaxed) == 0 {
            await trickle.send("x")
            await server.advance(by: .milliseconds(50))
        }
        let refused = await trickle.readResponses(1).first
        #expect(refused?.status == 408)
        #expect(refused?.header("Connection") == "close")
        let cutAfter = clock.now() - start
        #expect(cutAfter >= 1_500_000_000 && cutAfter < 2_000_000_000,
                "cut by the rate deadline (1.5 s and a little for 30 bytes), not the trickle's end (5 s)")
        #expect(server.server.stats.slowBodies.load(ordering: .relaxed) == 1)

        // 32 MiB in 256 KiB pieces over 2.56 s, well past the grace.
        // The clock moves only once the responder has taken every byte
        // sent so far: a loaded machine's late reads are not the client's
        // slowness.
        let fast = try server.client()
        let fastStart = clock.now()
        let size = 32 << 20, piece = [UInt8](repeating: 0x61, count: 256 * 1024)
        let before = consumed.count
        await fast.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(size)\r\n\r\n")
        for index in 0..<(size / piece.count) {
            await fast.send(piece)
            if index % 4 == 0 {
                let sent = (index + 1) * piece.count
                await server.eventually { consumed.count - before >= sent }
                await server.advance(by: .milliseconds(80))
            }
        }
        let passed = await fast.readResponses(1).first
        #expect(passed?.status == 200)
        #expect(passed?.bodyText == "\(size)")
        #expect(clock.now() - fastStart > 2_500_000_000, "past the grace")
        #expect(server.server.stats.slowBodies.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    /// A client waiting for `100 Continue` is not timed until it is sent:
    /// a handler that asks for the body late does not cost it its grace.
    @Test func theRateDeadlineStartsAtContinueForAClientThatWaits() async throws {
        let clock = ManualLoopClock()
        let (asked, ask) = AsyncStream.makeStream(of: Void.self)
        let server = try await TestServer.start(clock: clock, configure: {
            $0.bodyRateGrace = .milliseconds(1500)
            $0.bodyMinRate = 1000
        }) { request in
            for await _ in asked { break } // past the grace before reading
            return await Self.counting(request)
        }
        let client = try server.client()
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        await server.eventually { server.server.stats.requests.load(ordering: .relaxed) == 1 }
        await server.advance(by: .seconds(4))
        ask.yield()
        let interim = await client.readResponses(1).first
        #expect(interim?.status == 100)
        await client.send("hello")
        let answer = await client.readResponses(1).first
        #expect(answer?.status == 200)
        #expect(answer?.bodyText == "5")
        #expect(server.server.stats.slowBodies.load(ordering: .relaxed) == 0)
        await server.stop()
    }

    /// Two connections from one address at a cap of 2: the third is
    /// answered 429 with `Retry-After` and closed, unread; once one of the
    /// two closes, the address may connect again.
    @Test func theConnectionOverThePerAddressCapIsRefusedUntilOneCloses() async throws {
        // A manual clock: a refusal lingers until read, however slow the machine.
        let server = try await TestServer.start(clock: ManualLoopClock(), configure: { $0.maxConnectionsPerAddress = 2 }) { _ in
            .text("ok")
        }
        var first: RawClient? = try server.client()
        let second = try server.client()
        for client in [first!, second] {
            await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(await client.readResponses(1).first?.status == 200)
        }
        let third = try server.client()
        await third.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        let refused = await third.readResponses(1).first
        #expect(refused?.status == 429)
        #expect(refused?.header("Retry-After") == "1")
        #expect(refused?.header("Connection") == "close")
        #expect(await third.isClosedByPeer())
        #expect(server.server.stats.refusedConnections.load(ordering: .relaxed) == 1)

        first = nil // closes the descriptor
        let loopback = IPAddress.v4(0x7F00_0001)
        // The server learns of the close on its loop; a loaded machine may take a while.
        let deadline = ContinuousClock.now + .seconds(30)
        while server.server.addressCounts.count(loopback) > 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.server.addressCounts.count(loopback) == 1, "the closed connection no longer counts")
        let again = try server.client()
        await again.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await again.readResponses(1).first?.status == 200)
        #expect(server.server.addressCounts.count(loopback) == 2)
        #expect(server.server.stats.refusedConnections.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    /// An address that keeps connecting past its cap gets a few refusals
    /// that linger until read (`ServerLoopState.lingeringRefusals`); the
    /// rest are closed at once, unanswered, so its refusals cannot fill the
    /// server's own connection cap.
    @Test func refusalsOfOneAddressLingerOnlyAFewAtATime() async throws {
        // A manual clock: the refusals linger until read, however slow the machine.
        let server = try await TestServer.start(clock: ManualLoopClock(), configure: { $0.maxConnectionsPerAddress = 1 }) { _ in
            .text("ok")
        }
        let held = try server.client()
        await held.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await held.readResponses(1).first?.status == 200)
        var refused: [RawClient] = []
        for _ in 0..<10 { refused.append(try server.client()) }
        // Every connection accepted and judged: 10 refusals counted.
        let deadline = ContinuousClock.now + .seconds(30)
        while server.server.stats.refusedConnections.load(ordering: .relaxed) < 10, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.server.stats.refusedConnections.load(ordering: .relaxed) == 10)
        let lingering = ServerLoopState.lingeringRefusals
        #expect(server.server.stats.openConnections.load(ordering: .relaxed) <= 1 + lingering,
                "at most the held connection and the lingering refusals are open")
        var answered = 0
        for client in refused where await client.readResponses(1).first?.status == 429 { answered += 1 }
        #expect(answered == lingering, "the first few are answered 429, the others closed unanswered")
        #expect(server.server.addressCounts.count(IPAddress.v4(0x7F00_0001)) == 1)
        await server.stop()
        withExtendedLifetime(held) {}
    }

    /// A peer in `uncappedPeers` (a trusted proxy) is not counted.
    @Test func anUncappedPeerHoldsMoreConnectionsThanTheCap() async throws {
        let server = try await TestServer.start(configure: {
            $0.maxConnectionsPerAddress = 1
            $0.uncappedPeers = [CIDR("127.0.0.1/32")!]
        }) { _ in .text("ok") }
        let clients = try (0..<3).map { _ in try server.client() }
        for client in clients {
            await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(await client.readResponses(1).first?.status == 200)
        }
        #expect(server.server.stats.refusedConnections.load(ordering: .relaxed) == 0)
        #expect(server.server.addressCounts.addresses == 0)
        await server.stop()
    }
}

/// A responder that reads each body to its end and answers its length,
/// counting every byte it has taken so far.
final class ConsumedBytes: Sendable {
    private let total = Atomic<Int>(0)

    var count: Int { total.load(ordering: .acquiring) }

    var responder: HTTPResponder {
        { [self] request in
            var length = 0
            do {
                while let piece = try await request.body.next() {
                    length += piece.count
                    self.total.add(piece.count, ordering: .releasing)
                }
                return .text("\(length)")
            } catch {
                return .text("\(error)", status: .badRequest)
            }
        }
    }
}
