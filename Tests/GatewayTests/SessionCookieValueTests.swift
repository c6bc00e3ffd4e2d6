import HTTP
import Sessions
import Testing
@testable import Gateway

/// The gateway reads the session cookie from the request's one `Cookie`
/// field's bytes, and from all of them joined when there are several: the
/// same value either way, and none when the cookie is named twice, in one
/// field or across two.
@Suite("Session cookie from a request")
struct SessionCookieValueTests {
    static func request(_ cookies: [String]) -> HTTPRequest {
        var headers: HTTPHeaders = ["Host": "app.example.com"]
        for cookie in cookies { headers.add("Cookie", cookie) }
        return HTTPRequest(head: HTTPRequestHead(method: .get, target: "/api/items", headers: headers))
    }

    @Test func oneFieldOrSeveralGiveTheSameValue() {
        let sessions = SessionManager(store: MemorySessionStore(clock: ContinuousClock(), unixClock: SystemUnixClock()))
        let name = sessions.configuration.cookieName
        let cases: [([String], String?)] = [
            ([], nil),
            (["a=1"], nil),
            (["a=1; \(name)=one; b=2"], "one"),
            (["a=1", "\(name)=two"], "two"),
            (["\(name)=first", "\(name)=second"], nil),
            (["\(name)=first; a=1; \(name)=second"], nil),
            (["a=1", "b=2; \(name)=\"quoted\""], "quoted"),
        ]
        for (cookies, expected) in cases {
            #expect(sessions.sessionCookieValue(Self.request(cookies)) == expected, "\(cookies)")
        }
    }
}
