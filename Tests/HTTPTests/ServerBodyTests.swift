import Testing
import HTTP
import System
import TestSupport

@Suite("HTTP server request and response bodies")
struct ServerBodyTests {
    nonisolated(nonsending) static func echo(_ request: HTTPRequest) async -> HTTPResponse {
        do {
            let body = try await request.body.collect(upTo: 1 << 20)
            return HTTPResponse(status: .ok, bytes: body)
        } catch {
            return .text("\(error)", status: .payloadTooLarge)
        }
    }

    @Test func contentLengthBodyReachesTheHandler() async throws {
        let server = try await TestServer.start(responder: Self.echo)
        let client = try server.client()
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello")
        try await Task.sleep(for: .milliseconds(30))
        await client.send(" world")
        #expect(await client.readResponses(1).first?.bodyText == "hello world")
        await server.stop()
    }

    @Test func chunkedBodyIsStreamedPieceByPiece() async throws {
        let server = try await TestServer.start { request in
            var pieces: [String] = []
            while let piece = try? await request.body.next() { pieces.append(String(decoding: piece, as: UTF8.self)) }
            return .text(pieces.joined(separator: "|"))
        }
        let client = try server.client()
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        try await Task.sleep(for: .milliseconds(50))
        await client.send("6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "hello| world")
        await server.stop()
    }

    @Test func expectContinueIsSentWhenTheHandlerReads() async throws {
        let server = try await TestServer.start(responder: Self.echo)
        let client = try server.client()
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = await client.readResponses(1)
        #expect(interim.first?.status == 100)
        await client.send("data")
        #expect(await client.readResponses(1).first?.bodyText == "data")
        await server.stop()
    }

    @Test func answeringWithoutReadingTheBodyClosesAfterTheResponse() async throws {
        let server = try await TestServer.start { _ in .text("early", status: .unauthorized) }
        let client = try server.client()
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n")
        let response = await client.readResponses(1).first
        #expect(response?.status == 401)
        #expect(response?.header("Connection") == "close")
        #expect(await client.isClosedByPeer())
        await server.stop()
    }

    @Test func bodyOverTheLimitIsRefused() async throws {
        let server = try await TestServer.start { request in
            do {
                _ = try await request.body.collect(upTo: 8)
                return .text("read")
            } catch {
                return .text("too large", status: .payloadTooLarge)
            }
        }
        let client = try server.client()
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n")
        #expect(await client.readResponses(1).first?.status == 413)
        await server.stop()
    }

    @Test func streamedResponseIsChunked() async throws {
        let server = try await TestServer.start { _ in
            HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                for i in 0..<3 { try await writer.write(Array("part\(i);".utf8)) }
            })
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        let response = await client.readResponses(1).first
        #expect(response?.header("Transfer-Encoding") == "chunked")
        #expect(response?.bodyText == "part0;part1;part2;")
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "part0;part1;part2;")
        await server.stop()
    }

    /// HTTP/1.0 has no chunked coding: a streamed answer without a length
    /// is close-delimited, even when the client asked for keep-alive.
    @Test func streamedResponseToHTTP10IsCloseDelimited() async throws {
        let server = try await TestServer.start { _ in
            HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                for i in 0..<3 { try await writer.write(Array("part\(i);".utf8)) }
            })
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let text = String(decoding: await client.readToEnd(), as: UTF8.self)
        #expect(!text.lowercased().contains("transfer-encoding"))
        #expect(text.hasSuffix("\r\n\r\npart0;part1;part2;"), "\(text)")
        await server.stop()
    }

    /// A body that arrives whole while reading is paused for it (the
    /// handler never reads it): once answered, the connection reads the
    /// next request instead of stalling until the idle timeout.
    @Test func unreadBodyThatArrivedWholeLeavesTheConnectionReading() async throws {
        let server = try await TestServer.start { request in
            try? await Task.sleep(for: .milliseconds(300))
            return .text(request.path == "/next" ? "next" : "refused", status: request.path == "/next" ? .ok : .unauthorized)
        }
        let client = try server.client()
        // 262,100 body bytes stay under the 256 KiB pause mark; the last
        // 37,900 cross it in one read that also ends the body.
        await client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 300000\r\n\r\n" + String(repeating: "a", count: 262_100))
        try await Task.sleep(for: .milliseconds(100))
        await client.send(String(repeating: "b", count: 37_900))
        let first = await client.readResponses(1).first
        #expect(first?.status == 401)
        if first?.header("Connection") != "close" {
            await client.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(await client.readResponses(1).first?.bodyText == "next")
        }
        await server.stop()
    }

    @Test func largeStreamedResponseWithLengthArrivesWhole() async throws {
        let size = 8 << 20
        let server = try await TestServer.start { _ in
            HTTPResponse(status: .ok, body: .stream(length: size) { writer in
                let piece = [UInt8](repeating: 0x61, count: 64 * 1024)
                for _ in 0..<(size / piece.count) { try await writer.write(piece) }
            })
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        let response = await client.readResponses(1).first
        #expect(response?.header("Content-Length") == String(size))
        #expect(response?.body.count == size)
        await server.stop()
    }

    /// The client asked to close after this response: the body is chunked
    /// all the same, so when its producer fails midway the missing last
    /// chunk (and the reset) tell the client it was cut.
    @Test func aFailedStreamToAClosingHTTP11ClientIsNeverComplete() async throws {
        let server = try await Self.failingStream()
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let (bytes, reset) = await client.readToEndOrReset()
        let raw = String(decoding: bytes, as: UTF8.self)
        #expect(raw.contains("Transfer-Encoding: chunked"))
        #expect(raw.contains("part0;"))
        #expect(!raw.hasSuffix("0\r\n\r\n"), "no last chunk")
        #expect(reset)
        await server.stop()
    }

    /// HTTP/1.0 has only the close to end a body: a failed one is reset.
    @Test func aFailedStreamToAnHTTP10ClientEndsInAReset() async throws {
        let server = try await Self.failingStream()
        let client = try server.client()
        await client.send("GET / HTTP/1.0\r\n\r\n")
        let (bytes, reset) = await client.readToEndOrReset()
        #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("\r\n\r\npart0;"))
        #expect(reset, "a close would read as the whole body")
        await server.stop()
    }

    /// A server whose streamed answer fails after its first piece.
    static func failingStream() async throws -> TestServer {
        try await TestServer.start { _ in
            HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                try await writer.write(Array("part0;".utf8))
                throw HTTPWriteError()
            })
        }
    }

    @Test func shortStreamedBodyAbortsTheConnection() async throws {
        let server = try await TestServer.start { _ in
            HTTPResponse(status: .ok, body: .stream(length: 10) { writer in try await writer.write(Array("abc".utf8)) })
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        let raw = String(decoding: await client.readToEnd(), as: UTF8.self)
        #expect(raw.contains("Content-Length: 10"))
        #expect(raw.hasSuffix("abc"))
        await server.stop()
    }
}
