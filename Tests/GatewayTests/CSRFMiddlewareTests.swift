import Routing
import Testing
import Configuration
import HTTP
import Observability
@testable import Gateway

@Suite("CSRF defence")
struct CSRFMiddlewareTests {
    static let origin = WebOrigin("https://app.example.com")!

    static func app(hits: Counter) -> Application {
        var router = RouterBuilder()
        router.add(.post, "/bff/thing") { _, _ in
            hits.increment()
            return HTTPResponse(status: .noContent)
        }
        router.add(.get, "/bff/login", options: RouteOptions(csrf: false)) { _, _ in HTTPResponse(status: .found) }
        return Application(router: router.build(), middlewares: [ErrorMiddleware(), CSRFMiddleware(publicOrigin: origin)],
                           logger: Logger(sink: .discarding))
    }

    @Test(arguments: [
        ([("X-CSRF", "1")], 204),
        ([("X-CSRF", "1"), ("Origin", "https://app.example.com")], 204),
        ([("X-CSRF", "1"), ("Origin", "HTTPS://APP.EXAMPLE.COM")], 204),
        ([("X-CSRF", "1"), ("Sec-Fetch-Site", "same-origin"), ("Origin", "https://app.example.com")], 204),
        ([("X-CSRF", "1"), ("Sec-Fetch-Site", "none")], 204),
        ([], 403),
        ([("X-CSRF", "0")], 403),
        ([("X-CSRF", "true")], 403),
        ([("X-CSRF", "1"), ("X-CSRF", "1")], 403),
        ([("X-CSRF", "1"), ("Sec-Fetch-Site", "cross-site")], 403),
        ([("X-CSRF", "1"), ("Sec-Fetch-Site", "Cross-Site")], 403),
        ([("X-CSRF", "1"), ("Origin", "https://evil.example")], 403),
        ([("X-CSRF", "1"), ("Origin", "https://app.example.com.evil.example")], 403),
        ([("X-CSRF", "1"), ("Origin", "http://app.example.com")], 403),
        ([("X-CSRF", "1"), ("Origin", "null")], 403),
        ([("X-CSRF", "1"), ("Origin", "https://app.example.com"), ("Origin", "https://evil.example")], 403),
    ] as [([(String, String)], Int)])
    func decides(headers: [(String, String)], status: Int) async {
        let hits = MetricsRegistry().counter("hits", help: "endpoint ran")
        let request = HTTPRequest(head: HTTPRequestHead(method: .post, target: "/bff/thing",
                                                        headers: HTTPHeaders(headers.map { HTTPField(name: $0.0, value: $0.1) })))
        let response = await Self.app(hits: hits).respond(request)
        #expect(response.status.code == status)
        #expect(hits.value() == (status == 204 ? 1 : 0), "a refused request must change nothing")
        if status == 403, case .bytes(let body) = response.body {
            #expect(String(decoding: body, as: UTF8.self).contains(#""error":"csrf_failed""#))
        }
    }

    @Test func exemptRoutesSkipTheCheck() async {
        let request = HTTPRequest(head: HTTPRequestHead(method: .get, target: "/bff/login",
                                                        headers: ["Sec-Fetch-Site": "cross-site"]))
        let response = await Self.app(hits: MetricsRegistry().counter("h", help: "h")).respond(request)
        #expect(response.status == .found)
    }
}
