import HTTP
import HTTPClient
import Testing

@Suite struct RequestResponseTests {
    @Test func getSendsHeadersInOrderAndNothingExtra() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            var headers = HTTPHeaders()
            headers.add("Authorization", "Basic YTpi")
            headers.add("X-Multi", "one")
            headers.add("X-Multi", "two")
            headers.add("X-Blank", "")
            let response = try await client.execute(HTTPClientRequest(url: upstream.url("/echo/path?q=1"), headers: headers))
            #expect(response.status == .ok)
            let lines = response.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "GET /echo/path?q=1")
            let sent = lines.dropFirst().prefix { !$0.isEmpty }
            #expect(sent.filter { !$0.hasPrefix("Host:") } == [
                "Authorization: Basic YTpi", "X-Multi: one", "X-Multi: two", "X-Blank: ",
            ])
        }
        await upstream.stop()
    }

    @Test func postSendsBodyWithLengthAndNoExpect() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let body = Array("grant_type=refresh_token&refresh_token=abc".utf8)
            let response = try await client.execute(HTTPClientRequest(
                method: .post, url: upstream.url("/echo"),
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                body: body))
            let text = response.text
            #expect(text.hasPrefix("POST /echo\n"))
            #expect(text.contains("Content-Length: \(body.count)\n"))
            #expect(text.contains("Content-Type: application/x-www-form-urlencoded\n"))
            #expect(text.contains("Accept: application/json\n"))
            #expect(!text.contains("Expect"))
            #expect(text.hasSuffix("\n\ngrant_type=refresh_token&refresh_token=abc"))
        }
        await upstream.stop()
    }

    @Test func largePostBodyIsSentWithoutExpectContinue() async throws { try await HeavyTests.run {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let body = [UInt8](repeating: 0x41, count: 3 << 20)
            let response = try await client.execute(HTTPClientRequest(method: .put, url: upstream.url("/upload"), body: body))
            #expect(response.text == "\(body.count) \(UInt64(body.count) * 0x41)")
        }
        await upstream.stop()
    } }

    @Test(arguments: [HTTPMethod.post, .put, .patch])
    func bodylessWritesSendZeroLength(_ method: HTTPMethod) async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let response = try await client.execute(HTTPClientRequest(method: method, url: upstream.url("/echo")))
            #expect(response.text.hasPrefix("\(method.rawValue) /echo\n"))
            #expect(response.text.contains("Content-Length: 0\n"))
            #expect(!response.text.contains("Content-Type"))
        }
        await upstream.stop()
    }

    @Test func deleteAndHead() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let deleted = try await client.execute(HTTPClientRequest(method: .delete, url: upstream.url("/echo/x")))
            #expect(deleted.text.hasPrefix("DELETE /echo/x\n"))
            let head = try await client.execute(HTTPClientRequest(method: .head, url: upstream.url("/bytes/100")))
            #expect(head.status == .ok)
            #expect(head.headers["Content-Length"] == "100")
            #expect(head.body.isEmpty)
        }
        await upstream.stop()
    }

    @Test func everyResponseHeaderArrivesInOrderWithRepeats() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let response = try await client.execute(HTTPClientRequest(url: upstream.url("/limited")))
            #expect(response.status == .tooManyRequests)
            #expect(response.headers["retry-after"] == "7")
            #expect(response.headers.values("Set-Cookie") == ["a=1", "b=2; Path=/"])
            let ours = response.headers.fields.filter { field in limitedFields.contains { $0.0 == field.name } }
            #expect(ours.map(\.name) == limitedFields.map(\.0))
            #expect(ours.map(\.value) == limitedFields.map(\.1))
            #expect(response.text == "{\"title\":\"slow down\"}")
        }
        await upstream.stop()
    }

    @Test(arguments: [200, 201, 204, 400, 401, 404, 500, 502, 503])
    func statusCodesAreReturnedAsResponses(_ code: Int) async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let response = try await client.execute(HTTPClientRequest(url: upstream.url("/status/\(code)")))
            #expect(response.status.code == code)
        }
        await upstream.stop()
    }

    @Test func redirectIsReturnedNotFollowed() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let response = try await client.execute(HTTPClientRequest(url: upstream.url("/redirect")))
            #expect(response.status == .found)
            #expect(response.headers["Location"] == "/echo")
            #expect(upstream.server.stats.requests.load(ordering: .relaxed) == 1)
        }
        await upstream.stop()
    }

    @Test func chunkedResponseIsReassembled() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let response = try await client.execute(HTTPClientRequest(url: upstream.url("/chunked/200000")))
            #expect(response.body.count == 200_000)
            #expect(response.headers["Transfer-Encoding"] == "chunked")
            #expect(response.body.reduce(UInt64(0)) { $0 &+ UInt64($1) } == patternChecksum(200_000))
        }
        await upstream.stop()
    }
}
