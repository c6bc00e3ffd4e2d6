import Synchronization
import Testing
import HTTP
import Observability
@testable import Routing

/// The stages around an endpoint (`Middleware`): `prepare` outermost
/// first, the endpoint, `finish` innermost first; a refusal skips the
/// stages inside it and the endpoint, and only the stages that prepared
/// finish. The same on the suspending and the immediate path.
@Suite("Middleware stages: order, refusals, outcomes")
struct PipelineTests {
    struct Refused: Error {}

    /// What the stages and the endpoints did, in order.
    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        func note(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Notes its calls; refuses requests to `refusing` paths; `finish`
    /// notes the outcome it got (a status or "error") and, when `renders`,
    /// turns an error into a 418.
    struct Stage: Middleware {
        let name: String
        let journal: Journal
        var refusing: String?
        var renders = false

        func prepare(_ request: HTTPRequest, context: RequestContext) throws {
            journal.note("\(name).prepare")
            if let refusing, request.path == Substring(refusing) { throw Refused() }
        }

        func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {
            switch outcome {
            case .success(let response): journal.note("\(name).finish \(response.status.code)")
            case .failure: journal.note("\(name).finish error")
            }
            if renders, case .failure = outcome { outcome = .success(HTTPResponse(status: HTTPStatus(418))) }
        }
    }

    static func router(_ journal: Journal) -> Router {
        var router = RouterBuilder()
        router.add(.get, "/later") { _, _ in
            journal.note("endpoint")
            return HTTPResponse(status: .ok)
        }
        router.addImmediate(.get, "/now") { _, _ in
            journal.note("endpoint")
            return HTTPResponse(status: .created)
        }
        router.add(.get, "/inner-refusal") { _, _ in
            journal.note("endpoint")
            return HTTPResponse(status: .ok)
        }
        router.add(.get, "/fails") { _, _ in
            journal.note("endpoint")
            throw Refused()
        }
        return router.build()
    }

    static func app(_ journal: Journal) -> Application {
        Application(router: router(journal), middlewares: [
            Stage(name: "outer", journal: journal),
            Stage(name: "middle", journal: journal, renders: true),
            Stage(name: "inner", journal: journal, refusing: "/inner-refusal"),
        ], logger: Logger(sink: .capturing(LogCapture())))
    }

    static func request(_ target: String) -> HTTPRequest {
        HTTPRequest(head: HTTPRequestHead(method: .get, target: target))
    }

    @Test func stagesPrepareOutermostFirstAndFinishInnermostFirst() async {
        let journal = Journal()
        let response = await Self.app(journal).respond(Self.request("/later"))
        #expect(response.status == .ok)
        #expect(journal.all == ["outer.prepare", "middle.prepare", "inner.prepare", "endpoint",
                                "inner.finish 200", "middle.finish 200", "outer.finish 200"])
    }

    @Test func anImmediateEndpointRunsThroughTheSameStages() {
        let journal = Journal()
        let response = Self.app(journal).respondImmediately(Self.request("/now"))
        #expect(response?.status == .created)
        #expect(journal.all == ["outer.prepare", "middle.prepare", "inner.prepare", "endpoint",
                                "inner.finish 201", "middle.finish 201", "outer.finish 201"])
    }

    @Test func aRefusalSkipsTheEndpointAndOnlyTheStagesOutsideItFinish() async {
        let journal = Journal()
        let response = await Self.app(journal).respond(Self.request("/inner-refusal"))
        #expect(response.status.code == 418, "the middle stage rendered the refusal")
        #expect(journal.all == ["outer.prepare", "middle.prepare", "inner.prepare",
                                "middle.finish error", "outer.finish 418"])
    }

    @Test func anEndpointsErrorIsTheOutcomeTheStagesSee() async {
        let journal = Journal()
        let response = await Self.app(journal).respond(Self.request("/fails"))
        #expect(response.status.code == 418)
        #expect(journal.all == ["outer.prepare", "middle.prepare", "inner.prepare", "endpoint",
                                "inner.finish error", "middle.finish error", "outer.finish 418"])
    }

    @Test func anErrorNoStageRendersIsABare500() async {
        let journal = Journal()
        let app = Application(router: Self.router(journal), middlewares: [Stage(name: "only", journal: journal)],
                              logger: Logger(sink: .capturing(LogCapture())))
        let response = await app.respond(Self.request("/fails"))
        #expect(response.status == .internalServerError)
        #expect(response.headers["X-Request-Id"] != nil)
        #expect(journal.all == ["only.prepare", "endpoint", "only.finish error"])
    }
}
