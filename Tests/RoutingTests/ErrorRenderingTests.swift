import HTTP
import Observability
import Testing
@testable import Routing

/// `ErrorMiddleware` renders an error through `HTTPResponseError` and
/// nothing else: a conforming error as its own status, fields and body;
/// any other error as a 500 that reveals nothing.
@Suite("Error rendering through HTTPResponseError")
struct ErrorRenderingTests {
    /// A conforming error of the test's own, unknown to Routing.
    struct Teapot: HTTPResponseError {
        var status: HTTPStatus { HTTPStatus(418) }
        var responseHeaders: HTTPHeaders { ["Content-Type": "text/plain", "X-Brew": "no"] }
        var responseBody: [UInt8] { Array("short and stout".utf8) }
    }

    struct Secretive: Error { let secret = "s3cr3t-token" }

    static func app(_ capture: LogCapture, throwing error: any Error & Sendable) -> Application {
        var router = RouterBuilder()
        router.add(.get, "/fails") { _, _ in throw error }
        router.addImmediate(.get, "/fails-now") { _, _ in throw error }
        return Application(router: router.build(), middlewares: [ErrorMiddleware()], logger: Logger(sink: .capturing(capture)))
    }

    static func request(_ target: String) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: .get, target: target))
    }

    static func text(_ response: HTTPResponse?) -> String {
        guard case .bytes(let bytes)? = response?.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aConformingErrorRendersItsStatusFieldsAndBody() async throws {
        let capture = LogCapture()
        let app = Self.app(capture, throwing: Teapot())
        for response in [await app.respond(Self.request("/fails")), try #require(app.respondImmediately(Self.request("/fails-now")))] {
            #expect(response.status.code == 418)
            #expect(response.headers["Content-Type"] == "text/plain" && response.headers["X-Brew"] == "no")
            #expect(Self.text(response) == "short and stout")
            #expect(response.headers["X-Request-Id"] != nil)
        }
        #expect(capture.lines.isEmpty, "a rendered error is no unhandled one")
    }

    @Test func aNonConformingErrorIsAnOpaque500() async throws {
        let capture = LogCapture()
        let app = Self.app(capture, throwing: Secretive())
        for response in [await app.respond(Self.request("/fails")), try #require(app.respondImmediately(Self.request("/fails-now")))] {
            #expect(response.status == .internalServerError)
            #expect(Self.text(response) == #"{"error":"internal_error","error_description":"The gateway could not complete the request."}"#)
            #expect(response.headers["Content-Type"] == "application/json" && response.headers["Cache-Control"] == "no-store")
        }
        let logged = capture.lines.joined()
        #expect(logged.contains(#""event":"http.unhandled_error""#) && logged.contains("Secretive"))
        #expect(!logged.contains("s3cr3t-token"))
    }

    /// The exact bytes of an `HTTPError`: its extra fields, then the JSON
    /// type and `no-store`; a body of `error` and `error_description`.
    @Test func anHTTPErrorRendersAsJSONWithItsFields() {
        let error = HTTPError(.serviceUnavailable, "upstream_unavailable", "Try again \"soon\".", headers: ["Retry-After": "5"])
        let response = error.response
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers.map { "\($0.name): \($0.value)" } == [
            "Retry-After: 5", "Content-Type: application/json", "Cache-Control: no-store",
        ])
        #expect(Self.text(response) == #"{"error":"upstream_unavailable","error_description":"Try again \"soon\"."}"#)
        #expect(HTTPError.methodNotAllowed([.get, .head]).response.headers["Allow"] == "GET, HEAD")
        #expect(HTTPError.notFound.withCookie("a=; Max-Age=0").response.headers["Set-Cookie"] == "a=; Max-Age=0")
    }

    @Test(arguments: [
        (HTTPBodyError.tooLarge, 413, "payload_too_large"),
        (.timedOut, 408, "request_timeout"),
        (.connectionClosed, 400, "invalid_request"),
    ])
    func aBodyThatCannotBeReadRendersItsStatus(error: HTTPBodyError, status: Int, code: String) {
        let response = ErrorMiddleware.response(for: error, context: RequestContext(
            requestID: "t", logger: Logger(sink: .discarding), peer: nil, routePattern: "/", parameters: [:],
            routeOptions: RouteOptions(), endpoint: RequestContext.notFound))
        #expect(response.status.code == status)
        #expect(Self.text(response).hasPrefix(#"{"error":"\#(code)","#))
    }
}
