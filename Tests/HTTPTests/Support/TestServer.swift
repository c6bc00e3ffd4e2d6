import Core
import HTTP
import System
import TestSupport

/// The HTTP tests' server: two loops unless a test asks otherwise.
typealias TestServer = LoopbackServer

extension LoopbackServer {
    static func start(loops: Int = 2, clock: any LoopClock = MonotonicClock(),
                      configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                      immediate: HTTPImmediateResponder? = nil,
                      responder: @escaping HTTPResponder) async throws -> LoopbackServer {
        try await launch(loops: loops, name: "test", clock: clock, configure: configure, immediate: immediate,
                         responder: responder)
    }
}

extension HTTPResponse {
    static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain"], bytes: Array(text.utf8))
    }
}
