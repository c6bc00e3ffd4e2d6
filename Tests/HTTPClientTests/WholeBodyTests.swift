@testable import HTTPClient
import Testing
import TestSupport

/// A sized body that arrives with its head is handed over whole, with no
/// channel between the connection and the reader; it reads like a
/// streamed one: one piece, then the end, once, and a cancelled body
/// fails its reads.
@Suite struct WholeBodyTests {
    @Test func aSmallAnswerInOneReadArrivesWholeAndTheConnectionIsReused() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 5\r\n\r\nhello"),
            .answer("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
        ])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(response.body.arrivedWhole)
            #expect(response.headers["X-A"] == "1")
            var first = response.body.makeAsyncIterator()
            #expect(try await first.next() == Array("hello".utf8))
            #expect(try await first.next() == nil)
            var second = response.body.makeAsyncIterator()
            #expect(try await second.next() == nil, "the body is read once, whichever iterator reads it")

            let empty = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(empty.body.arrivedWhole)
            #expect(empty.status.code == 404)
            #expect(try await empty.body.collect(upTo: 10) == [])
            #expect(upstream.accepted == 1)
        }
    }

    /// An interim 1xx head before the answer, all in one read; and an
    /// answer to HEAD, which has no body whatever its length says.
    @Test func afterAnInterimHeadAndForHEADTheBodyIsWholeToo() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext"),
        ])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let interim = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(interim.body.arrivedWhole)
            #expect(try await interim.body.collect(upTo: 10) == Array("ok".utf8))
            let head = try await client.stream(HTTPClientRequest(method: .head, url: upstream.url("/")), body: nil)
            #expect(head.body.arrivedWhole)
            #expect(try await head.body.collect(upTo: 10) == [])
            let next = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(try await next.body.collect(upTo: 10) == Array("next".utf8))
            #expect(upstream.accepted == 1)
        }
    }

    /// A whole body within the limit is taken at once, once; one over the
    /// limit is left to be read, and a streamed one is never whole.
    @Test func aWholeBodyIsTakenAtOnceOnceAndOnlyWithinTheLimit() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nworld"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello", then: .stall),
        ])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let first = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(first.body.takeWhole(upTo: 5) == Array("hello".utf8))
            #expect(first.body.takeWhole(upTo: 5) == nil)
            #expect(try await first.body.collect(upTo: 10) == [], "taken, as a read would have")

            let second = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(second.body.takeWhole(upTo: 4) == nil)
            await #expect(throws: HTTPClientError.responseTooLarge) { try await second.body.collect(upTo: 4) }

            let streamed = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(streamed.body.takeWhole(upTo: 100) == nil)
            streamed.body.cancel()
        }
    }

    @Test func aCancelledWholeBodyFailsItsReads() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"),
                                        .answer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nxyz")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(response.body.arrivedWhole)
            response.body.cancel()
            await #expect(throws: HTTPClientError.cancelled) { try await response.body.collect(upTo: 10) }

            // A reading task that is cancelled gives the body up, as with a channel.
            let again = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(again.body.arrivedWhole)
            let reader = Task { () async -> HTTPClientError? in
                withUnsafeCurrentTask { $0?.cancel() }
                do throws(HTTPClientError) { _ = try await again.body.collect(upTo: 10) } catch { return error }
                return nil
            }
            #expect(await reader.value == .cancelled)
        }
    }

    /// Part of the body with the head (the rest never comes): it streams
    /// through a channel; and a body past the response limit is still
    /// refused.
    @Test func aBodyNotInHandOrOverTheLimitStillStreams() async throws {
        let upstream = try RawUpstream([
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n01234567890123456789"),
            .answer("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello", then: .stall),
        ])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let limited = try await client.stream(HTTPClientRequest(url: upstream.url("/"), maxResponseBytes: 10), body: nil)
            #expect(!limited.body.arrivedWhole)
            await #expect(throws: HTTPClientError.responseTooLarge) { try await limited.body.collect(upTo: 100) }

            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(!response.body.arrivedWhole)
            var pieces = response.body.makeAsyncIterator()
            #expect(try await pieces.next() == Array("hello".utf8))
            response.body.cancel()
        }
    }
}
