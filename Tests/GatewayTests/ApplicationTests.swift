import Foundation
import Routing
import Testing
import HTTP
import Observability
@testable import Gateway

@Suite("Application pipeline: errors, request ids, metrics, access log")
struct ApplicationTests {
    struct Boom: Error { let secret = "s3cr3t-token" }

    static func app(capture: LogCapture, metrics: MetricsRegistry) -> Application {
        var router = RouterBuilder()
        router.add(.get, "/ok") { _, _ in HTTPResponse(status: .ok, bytes: Array("fine".utf8)) }
        router.add(.get, "/teapot/{id}") { _, context in
            throw GatewayError(.badRequest, "invalid_request", "Bad id \(context.parameters["id"] ?? "").")
        }
        router.add(.get, "/boom") { _, _ in throw Boom() }
        router.add(.post, "/echo", options: RouteOptions(maxBodyBytes: 4)) { request, context in
            HTTPResponse(status: .ok, bytes: try await request.body.collect(upTo: context.routeOptions.maxBodyBytes))
        }
        let logger = Logger(level: .info, sink: .capturing(capture))
        return Application(router: router.build(), middlewares: [ObservationMiddleware(metrics: metrics, accessLog: true), ErrorMiddleware()],
                           logger: logger)
    }

    static func request(_ method: HTTPMethod, _ target: String, body: [UInt8]? = nil) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: method, target: target), body: body.map(HTTPRequestBody.bytes) ?? .empty)
    }

    static func json(_ response: HTTPResponse) -> [String: String] {
        guard case .bytes(let bytes) = response.body,
              let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String] else { return [:] }
        return object
    }

    @Test func errorsRenderAsErrorAndDescription() async {
        let app = Self.app(capture: LogCapture(), metrics: MetricsRegistry())
        let notFound = await app.respond(Self.request(.get, "/missing"))
        #expect(notFound.status == .notFound)
        #expect(Self.json(notFound)["error"] == "not_found")
        let notAllowed = await app.respond(Self.request(.delete, "/ok"))
        #expect(notAllowed.status == .methodNotAllowed)
        #expect(notAllowed.headers["Allow"] == "GET, HEAD", "HEAD comes with GET")
        let bad = await app.respond(Self.request(.get, "/teapot/7"))
        #expect(bad.status == .badRequest)
        #expect(Self.json(bad) == ["error": "invalid_request", "error_description": "Bad id 7."])
        #expect(bad.headers["Content-Type"] == "application/json")
    }

    @Test func unknownErrorsRevealNothing() async {
        let capture = LogCapture()
        let app = Self.app(capture: capture, metrics: MetricsRegistry())
        let response = await app.respond(Self.request(.get, "/boom"))
        #expect(response.status == .internalServerError)
        #expect(Self.json(response)["error"] == "internal_error")
        let everything = capture.lines.joined() + String(decoding: { if case .bytes(let b) = response.body { return b }; return [] }(), as: UTF8.self)
        #expect(!everything.contains("s3cr3t-token"))
        #expect(capture.lines.contains { $0.contains("\"event\":\"http.unhandled_error\"") })
    }

    @Test func bodyLimitsGive413() async {
        let app = Self.app(capture: LogCapture(), metrics: MetricsRegistry())
        #expect(await app.respond(Self.request(.post, "/echo", body: Array("12345".utf8))).status == .payloadTooLarge)
        #expect(await app.respond(Self.request(.post, "/echo", body: Array("1234".utf8))).status == .ok)
    }

    @Test func everyResponseCarriesAFreshRequestID() async {
        let app = Self.app(capture: LogCapture(), metrics: MetricsRegistry())
        let first = await app.respond(Self.request(.get, "/ok")).headers["X-Request-Id"]
        let second = await app.respond(Self.request(.get, "/missing")).headers["X-Request-Id"]
        #expect(first != nil && second != nil && first != second)
    }

    @Test func requestIDsAreAProcessPrefixAndAHexCounter() throws {
        let ids = RequestIDGenerator()
        let made = (0..<300).map { _ in ids.next() }
        let prefix = String(made[0].prefix(17))
        #expect(prefix.utf8.count == 17 && prefix.hasSuffix("-"))
        #expect(prefix.dropLast().allSatisfy { "0123456789abcdef".contains($0) })
        #expect(made.allSatisfy { $0.hasPrefix(prefix) })
        #expect(made.map { UInt64($0.dropFirst(17), radix: 16) } == (1...300).map { UInt64($0) })
        #expect(made[15].dropFirst(17) == "10" && made[255].dropFirst(17) == "100")
        #expect(RequestIDGenerator().next().prefix(16) != prefix.prefix(16)) // 2⁻⁶⁴ to fail by chance
    }

    @Test func accessLineNamesTheRouteNeverThePathOrQuery() async throws {
        let capture = LogCapture()
        let app = Self.app(capture: capture, metrics: MetricsRegistry())
        // Values that cannot turn up in the line by chance (the request id
        // is hex, the duration a number): "123456" or "abc" once did.
        let response = await app.respond(Self.request(.get, "/teapot/user-42?code=query-code-q&token=query-token-z"))
        let line = try #require(capture.lines.first { $0.contains("\"event\":\"http.access\"") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["route"] as? String == "/teapot/{id}")
        #expect(object["status"] as? Int == 400)
        #expect(object["method"] as? String == "GET")
        #expect(object["requestId"] as? String == response.headers["X-Request-Id"])
        #expect(object["durationMs"] is Double)
        #expect(!line.contains("query-code-q") && !line.contains("query-token-z") && !line.contains("user-42"))
    }

    @Test func requestsAreCountedByRouteAndStatus() async {
        let metrics = MetricsRegistry()
        let app = Self.app(capture: LogCapture(), metrics: metrics)
        _ = await app.respond(Self.request(.get, "/ok"))
        _ = await app.respond(Self.request(.get, "/ok"))
        _ = await app.respond(Self.request(.get, "/nope"))
        let text = metrics.render()
        #expect(text.contains(#"bff_http_requests_total{route="/ok",method="GET",status="200"} 2"#))
        #expect(text.contains(#"bff_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(text.contains(#"bff_http_request_duration_seconds_count{route="/ok"} 2"#))
        #expect(text.contains("bff_http_requests_in_flight 0"))
    }

    @Test func unusualMethodsShareOneLabel() {
        #expect(ObservationMiddleware.methodLabel(HTTPMethod("BREW")) == "other")
        #expect(ObservationMiddleware.methodLabel(.patch) == "PATCH")
    }
}
