import HTTP

/// What answers the requests a route matched. `respond` serves every
/// request, in a task (a request worker). A responder may also offer a
/// fast path: asked on the loop thread about a request without a body as
/// its head is parsed, before the stages' `prepare`, `fastPath` only
/// looks and says how to answer with no task at all, or nil, and the
/// request then goes to a worker and `respond`. One responder, one set of
/// checks: what `fastPath` can answer, `respond` answers the same way.
public protocol Responder: Sendable {
    /// Answers a request the route matched, after the stages' `prepare`.
    func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse

    /// How to answer `request` (whose id and trace `context` holds) on
    /// the loop thread without a task, or nil. Called before the stages'
    /// `prepare`, so it must not act (no effect a refused request must
    /// not have).
    func fastPath(for request: HTTPRequest, context: RequestContext) -> FastPath?

    /// Whether `fastPath` can answer at all: a listener none of whose
    /// routes has a fast path is never asked (`Application.immediateResponder`).
    var hasFastPath: Bool { get }
}

extension Responder {
    /// No fast path: every request goes to a worker.
    public func fastPath(for request: HTTPRequest, context: RequestContext) -> FastPath? { nil }

    /// No fast path.
    public var hasFastPath: Bool { false }
}

/// How a fast path answers (see `Responder.fastPath`); either way the
/// stages' `prepare` runs first and their `finish` after, on the loop.
public enum FastPath: Sendable {
    /// Answer now with what this function returns (or throws).
    case now(ImmediateHandler)
    /// Start an answer (an upstream exchange), finished from a callback.
    case start(AnswerStart)
}

/// An endpoint answering in a task.
public typealias RouteHandler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// An endpoint that answers without suspending (no Redis, no upstream, no
/// request body), such as `/healthz`.
public typealias ImmediateHandler = @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse

/// Starts an answer after the stages' `prepare` (an upstream exchange),
/// and calls the handler it is given with the outcome once, after
/// returning (never inside the call): on the same loop thread, or from a
/// task when the answer needed one (a small body still to collect).
public typealias AnswerStart = @Sendable (RequestContext, @escaping AnswerHandler) -> Void

/// Takes the outcome of a started answer (see `AnswerStart`), consuming
/// it: the response's header buffer then has one owner, and the request
/// id is added to it in place.
public typealias AnswerHandler = @Sendable (consuming Result<HTTPResponse, any Error>) -> Void

/// A responder made of a handler that always runs in a task.
struct HandlerResponder: Responder {
    let handler: RouteHandler

    init(_ handler: @escaping RouteHandler) {
        self.handler = handler
    }

    func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await handler(request, context)
    }
}

/// A responder whose handler never suspends: its fast path answers every
/// request without a body, and `respond` serves the rest the same way.
struct ImmediateResponder: Responder {
    let handler: ImmediateHandler

    init(_ handler: @escaping ImmediateHandler) {
        self.handler = handler
    }

    func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try handler(request, context)
    }

    func fastPath(for request: HTTPRequest, context: RequestContext) -> FastPath? { .now(handler) }

    var hasFastPath: Bool { true }
}
