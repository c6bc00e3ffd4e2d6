import HTTP
@testable import HTTPClient
import Testing

/// A request made on a base (`HTTPClientRequest(base:appending:)`, a proxy
/// route's upstream) is the request to the base's URL followed by the
/// suffix: the same target, the same checks, the same wire bytes.
@Suite struct RequestBaseTests {
    @Test(arguments: [
        ("http://h/", "items?x=1"),
        ("http://h:8080/v1/orders/", "42"),
        ("http://[::1]:9/a/", "b%2Fc?d=e&f"),
        ("http://h?q=", "1"),
        ("http://h/base/", ""),
    ])
    func anAppendedTargetIsTheTargetOfTheWholeURL(base: String, suffix: String) throws {
        let whole = try #require(PlainHTTPTarget(base + suffix))
        let appended = try #require(PlainHTTPTarget(base)?.appending(suffix))
        #expect(appended.host == whole.host)
        #expect(appended.port == whole.port)
        #expect(appended.authority == whole.authority)
        #expect(appended.target == whole.target)
        let request = HTTPClientRequest(base: HTTPClientBase(base), appending: suffix)
        #expect(request.url == base + suffix)
        #expect(request.plainTarget?.target == whole.target)
    }

    /// Appending to `http://h` would change the host, and a fragment is no
    /// part of a target: such requests go the general way (libcurl).
    @Test(arguments: [("http://h", "x"), ("http://h:80", "/x"), ("http://h/", "a#b"), ("https://h/", "x")])
    func aSuffixThatIsNoPlainTargetIsNotAppended(base: String, suffix: String) {
        #expect(HTTPClientRequest(base: HTTPClientBase(base), appending: suffix).plainTarget == nil)
    }

    @Test(arguments: ["a b", "a\r\nX: 1", "a\u{7F}", "\t"])
    func aSuffixWithSpacesOrControlsIsRefused(suffix: String) {
        let request = HTTPClientRequest(base: HTTPClientBase("http://127.0.0.1:1/"), appending: suffix)
        #expect(throws: HTTPClientError.invalidURL) { try RequestValidation.check(request) }
    }

    @Test func aBasedRequestReachesItsPathOverTheClientsOwnConnection() async throws {
        let upstream = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            var headers = HTTPHeaders()
            headers.add("X-A", "1")
            let request = HTTPClientRequest(method: .get, base: HTTPClientBase(upstream.url("/v1/")),
                                            appending: "items/7?full=1", headers: headers)
            let answer = try await get(client, request)
            #expect(answer == Answer(200, "ok"))
        }
        let received = try #require(upstream.received.first)
        #expect(received.requestLine == "GET /v1/items/7?full=1 HTTP/1.1")
        #expect(received.values("Host") == ["127.0.0.1:\(upstream.port)"])
        #expect(received.values("X-A") == ["1"])
    }
}
