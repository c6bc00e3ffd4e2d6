import HTTP
import HTTPClient
import Testing

@Suite struct HeadParsingTests {
    /// The three readers of a plain-http answer: libcurl's, whole and
    /// streamed, and the client's own connection.
    enum Reader: String, CaseIterable, Sendable {
        case libcurlWhole, libcurlStream, own
    }

    @Test(arguments: HeadCase.bad)
    func badHeadIsRefusedOnEveryPath(_ head: HeadCase) async throws {
        for reader in Reader.allCases {
            let outcome = try await read(head.answer, by: reader)
            #expect(outcome == .failure(.invalidResponse), "\(reader.rawValue)")
        }
    }

    @Test func trailersPast16KiBAreRefusedOnEveryPath() async throws {
        let trailers = String(repeating: "X-T: " + String(repeating: "0", count: 90) + "\r\n", count: 180)
        let answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n" + trailers + "\r\n"
        for reader in Reader.allCases {
            #expect(try await read(answer, by: reader) == .failure(.invalidResponse), "\(reader.rawValue)")
        }
    }

    @Test(arguments: HeadCase.good)
    func goodHeadIsReadAlikeOnEveryPath(_ head: HeadCase) async throws {
        for reader in Reader.allCases {
            let outcome = try await read(head.answer, by: reader)
            #expect(outcome == .success(head.expected!), "\(reader.rawValue)")
        }
    }

    /// What `reader` makes of `answer`, sent by a one-connection upstream.
    private func read(_ answer: String, by reader: Reader) async throws -> Result<HeadOutcome, HTTPClientError> {
        let upstream = try ScriptedUpstream(answer: answer)
        let url = "http://127.0.0.1:\(upstream.port)/"
        var configuration = HTTPClientConfiguration(connectTimeout: .seconds(2), timeout: .seconds(5))
        configuration.ownPlainHTTP = reader == .own
        return try await withClient(configuration: configuration) { client, _ in
            do throws(HTTPClientError) {
                if reader == .libcurlWhole {
                    let response = try await client.execute(HTTPClientRequest(url: url))
                    return .success(HeadOutcome(status: response.status, headers: response.headers, body: response.body))
                }
                let response = try await client.stream(HTTPClientRequest(url: url), body: nil)
                let body = try await response.body.collect(upTo: 1 << 20)
                return .success(HeadOutcome(status: response.status, headers: response.headers, body: body))
            } catch {
                return .failure(error)
            }
        }
    }

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
