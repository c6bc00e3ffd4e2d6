import Testing
import HTTP
import System
import TestSupport

@Suite("HTTP server over loopback")
struct ServerBasicsTests {
    @Test func answersAGetWithFramingAndDate() async throws {
        let server = try await TestServer.start { request in .text("hello \(request.path)") }
        let client = try server.client()
        await client.send("GET /x?y=1 HTTP/1.1\r\nHost: a\r\n\r\n")
        let responses = await client.readResponses(1)
        #expect(responses.count == 1)
        #expect(responses.first?.status == 200)
        #expect(responses.first?.bodyText == "hello /x")
        #expect(responses.first?.header("Content-Length") == "8")
        #expect(responses.first?.header("Date")?.hasSuffix(" GMT") == true)
        await server.stop()
    }

    @Test func keepsAliveAndAnswersPipelinedRequestsInOrder() async throws {
        let server = try await TestServer.start { request in
            // The first request is the slowest: order must still hold.
            if request.path == "/1" { try? await Task.sleep(for: .milliseconds(80)) }
            return .text(String(request.path))
        }
        let client = try server.client()
        await client.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\nGET /3 HTTP/1.1\r\nHost: a\r\n\r\n")
        let responses = await client.readResponses(3)
        #expect(responses.map(\.bodyText) == ["/1", "/2", "/3"])
        await client.send("GET /4 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "/4")
        await server.stop()
    }

    @Test func http10WithoutKeepAliveCloses() async throws {
        let server = try await TestServer.start { _ in .text("ok") }
        let client = try server.client()
        await client.send("GET / HTTP/1.0\r\n\r\n")
        let raw = String(decoding: await client.readToEnd(), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(raw.contains("Connection: close\r\n"))
        #expect(raw.hasSuffix("\r\n\r\nok"))
        await server.stop()
    }

    @Test func http10KeepAliveIsAnnouncedAndKept() async throws {
        let server = try await TestServer.start { _ in .text("ok") }
        let client = try server.client()
        await client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = await client.readResponses(1)
        #expect(first.first?.header("Connection") == "keep-alive")
        await client.send("GET / HTTP/1.0\r\n\r\n")
        #expect(await client.readResponses(1).first?.status == 200)
        #expect(await client.isClosedByPeer())
        await server.stop()
    }

    @Test func connectionCloseIsHonoured() async throws {
        let server = try await TestServer.start { _ in .text("ok") }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /ignored HTTP/1.1\r\nHost: a\r\n\r\n")
        let responses = await client.readResponses(2)
        #expect(responses.count == 1)
        #expect(responses.first?.header("Connection") == "close")
        await server.stop()
    }

    @Test func headAnswersWithoutBody() async throws {
        let server = try await TestServer.start { _ in .text("twelve bytes") }
        let client = try server.client()
        await client.send("HEAD / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let raw = String(decoding: await client.readToEnd(), as: UTF8.self)
        #expect(raw.contains("Content-Length: 12\r\n"))
        #expect(raw.hasSuffix("\r\n\r\n"))
        await server.stop()
    }

    @Test func responseSplittingHeadersAreDropped() async throws {
        // CR, LF or NUL at the start, middle and end of an eight-byte word
        // and in the tail; a tab and other bytes are kept.
        let value = "0123456789abcdefghij"
        var bad: [String] = []
        for position in [0, 3, 7, 8, 15, 19] {
            for control in ["\r", "\n", "\u{0}"] {
                var characters = Array(value)
                characters[position] = Character(control)
                bad.append(String(characters))
            }
        }
        let badValues = bad
        let server = try await TestServer.start { _ in
            var headers: HTTPHeaders = ["X-Good": "yes\tand more than eight bytes", "X-Bad": "a\r\nSet-Cookie: evil=1",
                                        "Content-Length": "999"]
            for (index, text) in badValues.enumerated() { headers.add("X-Bad-\(index)", text) }
            headers.add("X-Long", value)
            return HTTPResponse(status: .ok, headers: headers, bytes: Array("ok".utf8))
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        let response = await client.readResponses(1).first
        #expect(response?.header("X-Good") == "yes\tand more than eight bytes")
        #expect(response?.header("X-Long") == value)
        #expect(response?.header("X-Bad") == nil)
        for index in bad.indices { #expect(response?.header("X-Bad-\(index)") == nil, "X-Bad-\(index)") }
        #expect(response?.header("Set-Cookie") == nil)
        #expect(response?.header("Content-Length") == "2")
        await server.stop()
    }

    /// Listeners share their port through `SO_REUSEPORT`; a second server
    /// (another process, as far as the kernel knows) must still be refused
    /// the port rather than join and take half the connections.
    @Test func aPortInUseIsRefused() async throws {
        let group = try EventLoopGroup(loops: 2)
        let port = try #require(LoopbackPort.free())
        let address = SocketAddress(ip: .v4(0x7F00_0001), port: port)
        let first = HTTPServer(configuration: HTTPServerConfiguration(address: address), loops: group.loops) { _ in .text("first") }
        try await first.start()
        let second = HTTPServer(configuration: HTTPServerConfiguration(address: address), loops: group.loops) { _ in .text("second") }
        await #expect(throws: SystemError.self) { try await second.start() }
        for _ in 0..<8 {
            let client = try RawClient(port: port)
            await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(await client.readResponses(1).first?.bodyText == "first")
        }
        await first.shutdown(gracePeriod: .milliseconds(100))
        group.shutdown()
    }

    @Test func servesIPv6Loopback() async throws {
        let group = try EventLoopGroup(loops: 1)
        let server = HTTPServer(configuration: HTTPServerConfiguration(address: SocketAddress(ip: .v6(high: 0, low: 1), port: 0)),
                                loops: group.loops) { request in .text(request.peer?.ip.description ?? "none") }
        try await server.start()
        let client = try RawClient(port: server.localAddress!.port, host: "::1")
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(await client.readResponses(1).first?.bodyText == "::1")
        await server.shutdown(gracePeriod: .milliseconds(100))
        group.shutdown()
    }
}
