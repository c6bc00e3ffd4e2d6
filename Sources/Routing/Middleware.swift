import HTTP

/// A stage around every endpoint: `prepare` looks at the request before
/// the endpoint runs and may refuse it by throwing; `finish` looks at the
/// outcome afterwards and may replace it. `Application` runs the stages'
/// `prepare` outermost first, then the endpoint, then `finish` innermost
/// first; a stage whose `prepare` threw skips the stages inside it and the
/// endpoint, and only the stages whose `prepare` returned get a `finish`,
/// with the error as their outcome.
///
/// Synchronous hooks rather than a `next` each stage awaits: every async
/// frame costs an executor switch (a lookup of the task's executor
/// preference under a lock) when the call it awaits returns. With hooks
/// the endpoint is the one call `Application` awaits, and a fast path
/// (`Responder.fastPath`) runs through the same stages on the loop
/// thread, with no second path for each stage to keep in step.
public protocol Middleware: Sendable {
    /// Looks at the request before the endpoint; throws to refuse it.
    func prepare(_ request: HTTPRequest, context: RequestContext) throws
    /// Looks at the outcome after the endpoint, and may replace it.
    func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>)
}

extension Middleware {
    /// Lets every request through.
    public func prepare(_ request: HTTPRequest, context: RequestContext) throws {}
    /// Leaves the outcome as it is.
    public func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {}
}
