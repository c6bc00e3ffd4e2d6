import HTTP

/// Turns errors into responses: an `HTTPResponseError` renders as itself,
/// anything else as a 500 that reveals nothing (its type is logged, never
/// its text, which might quote a secret).
public struct ErrorMiddleware: Middleware {
    /// The stage.
    public init() {}

    /// Replaces an error with its rendering.
    public func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {
        if case .failure(let error) = outcome {
            outcome = .success(Self.response(for: error, context: context))
        }
    }

    static func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        if let error = error as? any HTTPResponseError { return error.response }
        context.logger.error("http.unhandled_error", ["errorType": .string(String(reflecting: type(of: error)))])
        return HTTPError.internalError.response
    }
}
