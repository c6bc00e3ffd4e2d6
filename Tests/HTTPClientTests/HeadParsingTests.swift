import HTTP
import HTTPClient
import Testing

@Suite struct HeadParsingTests {
    @Test func onlyTheFinalHeadOfA1xxSequenceIsKept() async throws {
        let upstream = try ScriptedUpstream(answer:
            "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Final: yes\r\n\r\nok")
        try await withClient { client, _ in
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(upstream.port)/"))
            #expect(response.status == .ok)
            #expect(response.headers.fields.map(\.name) == ["Content-Length", "X-Final"])
            #expect(response.body == Array("ok".utf8))
        }
    }

    @Test func foldedFieldsAreJoinedAndTrailersDropped() async throws {
        let upstream = try ScriptedUpstream(answer:
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Folded: one\r\n  two\r\nTrailer: X-Sum\r\n\r\n"
            + "2\r\nok\r\n0\r\nX-Sum: 9\r\n\r\n")
        try await withClient { client, _ in
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(upstream.port)/"))
            #expect(response.headers["X-Folded"] == "one two")
            #expect(response.headers["X-Sum"] == nil)
            #expect(response.body == Array("ok".utf8))
        }
    }

    @Test func streamedHeadSkips1xx() async throws {
        let upstream = try ScriptedUpstream(answer:
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 4\r\n\r\nslow")
        try await withClient { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: "http://127.0.0.1:\(upstream.port)/"), body: nil)
            #expect(response.status == .tooManyRequests)
            #expect(response.headers.fields.map(\.name) == ["Retry-After", "Content-Length"])
            #expect(try await response.body.collect(upTo: 100) == Array("slow".utf8))
        }
    }

    @Test func explicitExpectContinueStillWorks() async throws {
        let upstream = try await Upstream.start()
        try await withClient { client, _ in
            let response = try await client.execute(HTTPClientRequest(
                method: .post, url: upstream.url("/echo"), headers: ["Expect": "100-continue"], body: Array("x=1".utf8)))
            #expect(response.status == .ok)
            #expect(response.text.hasSuffix("\n\nx=1"))
        }
        await upstream.stop()
    }
}
