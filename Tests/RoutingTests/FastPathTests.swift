import HTTP
import Observability
import Synchronization
import Testing
@testable import Routing

/// A responder's fast path (`Responder.fastPath`): taken on the loop
/// thread when it offers one, through the same stages; declined, and the
/// request left to `respond`, when it does not.
@Suite("Responder fast path")
struct FastPathTests {
    /// Counts what ran; a fast path for `/now` (answered now), `/start`
    /// (started, finished from the test), none for anything else.
    final class Probe: Responder, Sendable {
        let slow = Atomic<Int>(0)
        let fast = Atomic<Int>(0)
        let pending = Mutex<AnswerHandler?>(nil)

        func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
            slow.add(1, ordering: .relaxed)
            return HTTPResponse(status: .noContent)
        }

        func fastPath(for request: HTTPRequest, context: RequestContext) -> FastPath? {
            switch request.path {
            case "/now":
                return .now { [self] _, _ in
                    fast.add(1, ordering: .relaxed)
                    return HTTPResponse(status: .created)
                }
            case "/start":
                return .start { [self] _, done in
                    fast.add(1, ordering: .relaxed)
                    pending.withLock { $0 = done }
                }
            default:
                return nil
            }
        }

        var hasFastPath: Bool { true }
    }

    /// Refuses requests carrying `X-Refuse`.
    struct Gate: Middleware {
        func prepare(_ request: HTTPRequest, context: RequestContext) throws {
            if request.headers["X-Refuse"] != nil { throw HTTPError(.forbidden, "refused", "Refused.") }
        }
    }

    static func app(_ probe: Probe) -> Application {
        var router = RouterBuilder()
        router.add([.get], "/*", responder: probe)
        router.add(.get, "/task") { _, _ in HTTPResponse(status: .ok) }
        return Application(router: router.build(), middlewares: [ErrorMiddleware(), Gate()], logger: Logger(sink: .discarding))
    }

    static func request(_ target: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: .get, target: target, headers: headers))
    }

    @Test func anImmediateAnswerIsTakenOnTheLoop() async {
        let probe = Probe()
        let app = Self.app(probe)
        #expect(app.immediateResponder != nil)
        #expect(app.respondImmediately(Self.request("/now"))?.status == .created)
        #expect(probe.fast.load(ordering: .relaxed) == 1 && probe.slow.load(ordering: .relaxed) == 0)
        #expect(await app.respond(Self.request("/now")).status == .noContent, "a worker uses respond")
    }

    @Test func aDeclinedRequestIsLeftToTheWorker() {
        let probe = Probe()
        let app = Self.app(probe)
        guard case .declined = app.respondImmediately(Self.request("/other"), HTTPLaterAnswer { _ in }) else {
            Issue.record("a responder without a fast path for the request declines it")
            return
        }
        guard case .declined = app.respondImmediately(Self.request("/task"), HTTPLaterAnswer { _ in }) else {
            Issue.record("a handler in a task has no fast path")
            return
        }
        guard case .declined = app.respondImmediately(Self.request("/missing/path"), HTTPLaterAnswer { _ in }) else {
            Issue.record("an unmatched path gets its 404 from a worker")
            return
        }
        #expect(probe.fast.load(ordering: .relaxed) == 0)
    }

    @Test func aStartedAnswerIsSentLaterThroughTheStages() throws {
        let probe = Probe()
        let app = Self.app(probe)
        let sent = Mutex<[HTTPResponse]>([])
        guard case .later = app.respondImmediately(Self.request("/start"), HTTPLaterAnswer { response in
            sent.withLock { $0.append(response) }
        }) else {
            Issue.record("a start is answered later")
            return
        }
        let done = try #require(probe.pending.withLock { $0 })
        #expect(sent.withLock { $0.isEmpty })
        done(.failure(HTTPError(.badGateway, "upstream_error", "Gone.")))
        let response = try #require(sent.withLock { $0.first })
        #expect(response.status == .badGateway, "the error stage rendered the failure")
        #expect(response.headers["X-Request-Id"] != nil)
    }

    @Test func aRefusedRequestIsAnsweredNowWithoutStarting() {
        let probe = Probe()
        let app = Self.app(probe)
        let response = app.respondImmediately(Self.request("/start", headers: ["X-Refuse": "1"]))
        #expect(response?.status == .forbidden)
        #expect(probe.fast.load(ordering: .relaxed) == 0, "nothing started")
    }

    @Test func aListenerWithoutFastPathsIsNeverAsked() {
        var router = RouterBuilder()
        router.add(.get, "/task") { _, _ in HTTPResponse(status: .ok) }
        #expect(Application(router: router.build(), middlewares: [], logger: Logger(sink: .discarding)).immediateResponder == nil)
    }
}
