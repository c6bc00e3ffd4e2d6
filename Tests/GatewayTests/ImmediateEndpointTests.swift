import Foundation
import Routing
import Testing
import Configuration
import HTTP
import Observability
@testable import Gateway

/// Routes whose endpoint answers without suspending (`RouterBuilder.addImmediate`):
/// `Application.respondImmediately` runs the same middleware chain around
/// them as `respond` does, and declines every other request.
@Suite("Immediate endpoints")
struct ImmediateEndpointTests {
    struct Boom: Error { let secret = "s3cr3t-token" }

    static let origin = WebOrigin("https://app.example.com")!

    static func app(capture: LogCapture = LogCapture(), metrics: MetricsRegistry = MetricsRegistry(),
                    hits: Counter? = nil) -> Application {
        var router = RouterBuilder()
        router.addImmediate(.get, "/now", options: RouteOptions(csrf: false)) { _, _ in
            HTTPResponse(status: .ok, bytes: Array("now".utf8))
        }
        router.addImmediate(.post, "/guarded") { _, _ in
            hits?.increment()
            return HTTPResponse(status: .noContent)
        }
        router.addImmediate(.get, "/refused", options: RouteOptions(csrf: false)) { _, _ in
            throw GatewayError(.tooManyRequests, "busy", "Not now.")
        }
        router.addImmediate(.get, "/boom", options: RouteOptions(csrf: false)) { _, _ in throw Boom() }
        router.add(.get, "/later", options: RouteOptions(csrf: false)) { _, _ in HTTPResponse(status: .ok, bytes: Array("later".utf8)) }
        return Application(router: router.build(),
                           middlewares: [ObservationMiddleware(metrics: metrics, accessLog: true), ErrorMiddleware(),
                                         CSRFMiddleware(publicOrigin: origin)],
                           logger: Logger(level: .info, sink: .capturing(capture)))
    }

    static func request(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: method, target: target, headers: headers))
    }

    static func text(_ response: HTTPResponse?) -> String {
        guard case .bytes(let bytes)? = response?.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func onlyImmediateRoutesAreAnsweredAtOnce() async {
        let app = Self.app()
        #expect(Self.text(app.respondImmediately(Self.request(.get, "/now"))) == "now")
        #expect(app.respondImmediately(Self.request(.head, "/now"))?.status == .ok, "HEAD goes with GET")
        #expect(app.respondImmediately(Self.request(.get, "/later")) == nil)
        #expect(app.respondImmediately(Self.request(.get, "/missing")) == nil)
        #expect(app.respondImmediately(Self.request(.delete, "/now")) == nil)
        // The suspending path serves an immediate endpoint too.
        #expect(Self.text(await app.respond(Self.request(.get, "/now"))) == "now")
        #expect(await app.respond(Self.request(.delete, "/now")).status == .methodNotAllowed)
    }

    @Test func aServerIsGivenTheImmediateResponderOnlyWhenARouteIsImmediate() {
        #expect(Self.app().immediateResponder != nil)
        var router = RouterBuilder()
        router.add(.get, "/later") { _, _ in HTTPResponse(status: .ok) }
        #expect(!router.build().hasFastPaths)
        #expect(Application(router: router.build(), middlewares: [], logger: Logger(sink: .discarding)).immediateResponder == nil)
    }

    @Test func theChainCountsTimesAndLogsAnImmediateAnswer() throws {
        let capture = LogCapture()
        let metrics = MetricsRegistry()
        let app = Self.app(capture: capture, metrics: metrics)
        let first = try #require(app.respondImmediately(Self.request(.get, "/now?code=123456")))
        let second = try #require(app.respondImmediately(Self.request(.get, "/now")))
        let text = metrics.render()
        #expect(text.contains(#"bff_http_requests_total{route="/now",method="GET",status="200"} 2"#))
        #expect(text.contains(#"bff_http_request_duration_seconds_count{route="/now"} 2"#))
        #expect(text.contains("bff_http_requests_in_flight 0"))
        let ids = [first.headers["X-Request-Id"], second.headers["X-Request-Id"]]
        #expect(ids[0] != nil && ids[1] != nil && ids[0] != ids[1])
        let line = try #require(capture.lines.first { $0.contains("\"event\":\"http.access\"") })
        #expect(line.contains(#""route":"/now""#) && !line.contains("123456"))
        #expect(line.contains(#""requestId":"\#(ids[0]!)""#))
    }

    @Test func errorsRenderAsOnTheSuspendingPath() async throws {
        let capture = LogCapture()
        let app = Self.app(capture: capture)
        let refused = try #require(app.respondImmediately(Self.request(.get, "/refused")))
        #expect(refused.status == .tooManyRequests)
        #expect(Self.text(refused) == Self.text(await app.respond(Self.request(.get, "/refused"))))
        let boom = try #require(app.respondImmediately(Self.request(.get, "/boom")))
        #expect(boom.status == .internalServerError)
        #expect(!(capture.lines.joined() + Self.text(boom)).contains("s3cr3t-token"))
        #expect(capture.lines.contains { $0.contains("\"event\":\"http.unhandled_error\"") })
    }

    @Test func csrfGuardsAnImmediateRoute() throws {
        let hits = MetricsRegistry().counter("hits", help: "endpoint ran")
        let app = Self.app(hits: hits)
        let refused = try #require(app.respondImmediately(Self.request(.post, "/guarded", headers: ["Origin": "https://evil.example"])))
        #expect(refused.status == .forbidden)
        #expect(Self.text(refused).contains(#""error":"csrf_failed""#))
        #expect(hits.value() == 0, "a refused request must change nothing")
        let allowed = try #require(app.respondImmediately(Self.request(.post, "/guarded", headers: ["X-CSRF": "1"])))
        #expect(allowed.status == .noContent)
        #expect(hits.value() == 1)
    }
}

extension Application {
    /// The answer given now, or nil (promised later, or declined).
    func respondImmediately(_ request: HTTPRequest) -> HTTPResponse? {
        guard case .now(let response) = respondImmediately(request, HTTPLaterAnswer { _ in }) else { return nil }
        return response
    }
}
