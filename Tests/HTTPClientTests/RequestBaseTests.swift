import HTTP
@testable import HTTPClient
import Testing
import TestSupport

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

    /// The base is checked once, when made, and a bad one refuses every
    /// request made on it.
    @Test(arguments: ["http://127.0.0.1:1/a b/", "http://127.0.0.1:1/\r\nX: 1/", ""])
    func aBaseWithSpacesOrControlsRefusesItsRequests(base: String) {
        #expect(!HTTPClientBase(base).isURLText)
        let request = HTTPClientRequest(base: HTTPClientBase(base), appending: "x")
        #expect(throws: HTTPClientError.invalidURL) { try RequestValidation.check(request) }
        #expect(HTTPClientBase("http://127.0.0.1:1/a/").isURLText)
    }

    /// A field added as checked is taken at its word; one added otherwise
    /// is checked, whatever its neighbours.
    @Test func onlyUncheckedFieldsAreCheckedAgain() throws {
        var headers = HTTPHeaders()
        headers.add("X-Good", "", "1", checked: true)
        headers.add("X-Bad", "a\r\nX-Injected: 1")
        let request = HTTPClientRequest(base: HTTPClientBase("http://127.0.0.1:1/"), appending: "x", headers: headers)
        #expect(throws: HTTPClientError.invalidRequest) { try RequestValidation.check(request) }
        var clean = HTTPHeaders()
        clean.add("X-Good", "", "1", checked: true)
        clean.add("X-Also-Good", "2")
        try RequestValidation.check(HTTPClientRequest(base: HTTPClientBase("http://127.0.0.1:1/"), appending: "x", headers: clean))
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

    /// Bases a client numbers (`HTTPClient.base`) find their endpoint's
    /// idle connections by number: two bases to one endpoint share them,
    /// and two endpoints keep theirs apart.
    @Test func numberedBasesShareAnEndpointsConnectionsAndNoOthers() async throws {
        let ok = RawUpstream.Reply.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let first = try RawUpstream([ok, ok, ok])
        let second = try RawUpstream([.answer("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond")])
        try await withClient(loops: 1, configuration: quick) { client, _ in
            let a = client.base(first.url("/a/")), b = client.base(first.url("/b/")), c = client.base(second.url("/"))
            #expect(a.plain?.slot == b.plain?.slot)
            #expect(a.plain?.slot != c.plain?.slot)
            let answer1 = try await get(client, HTTPClientRequest(base: a, appending: "1"))
            #expect(answer1 == Answer(200, "ok"))
            let answer2 = try await get(client, HTTPClientRequest(base: b, appending: "2"))
            #expect(answer2 == Answer(200, "ok"))
            let answer3 = try await get(client, HTTPClientRequest(base: c, appending: "3"))
            #expect(answer3 == Answer(200, "second"))
            let answer4 = try await get(client, HTTPClientRequest(url: first.url("/plain")))
            #expect(answer4 == Answer(200, "ok"))
        }
        #expect(first.accepted == 1)
        #expect(first.received.map(\.requestLine) == ["GET /a/1 HTTP/1.1", "GET /b/2 HTTP/1.1", "GET /plain HTTP/1.1"])
        #expect(second.accepted == 1)
        #expect(second.received.map(\.requestLine) == ["GET /3 HTTP/1.1"])
    }

    /// A base numbered by another client may carry a number this client
    /// gave another endpoint: its requests still go to their own endpoint.
    @Test func aBaseFromAnotherClientFindsItsOwnEndpoint() async throws {
        let ok = RawUpstream.Reply.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let mine = try RawUpstream([ok, ok])
        let theirs = try RawUpstream([ok, ok])
        try await withClient(loops: 1, configuration: quick) { other, _ in
            try await withClient(loops: 1, configuration: quick) { client, _ in
                let foreign = other.base(theirs.url("/t/"))
                let own = client.base(mine.url("/m/"))
                #expect(foreign.plain?.slot == own.plain?.slot)
                for round in 0..<2 {
                    let answer5 = try await get(client, HTTPClientRequest(base: own, appending: "\(round)"))
                    #expect(answer5 == Answer(200, "ok"))
                    let answer6 = try await get(client, HTTPClientRequest(base: foreign, appending: "\(round)"))
                    #expect(answer6 == Answer(200, "ok"))
                }
            }
        }
        #expect(mine.received.map(\.requestLine) == ["GET /m/0 HTTP/1.1", "GET /m/1 HTTP/1.1"])
        #expect(theirs.received.map(\.requestLine) == ["GET /t/0 HTTP/1.1", "GET /t/1 HTTP/1.1"])
        #expect(mine.accepted == 1)
        #expect(theirs.accepted == 1)
    }
}
