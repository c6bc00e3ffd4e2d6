import HTTP

/// Turns errors into responses: a `GatewayError` renders as itself, body
/// read failures as 413 or 408, and anything else as a 500 that reveals
/// nothing (its type is logged, never its text, which might quote a secret).
public struct ErrorMiddleware: Middleware {
    public init() {}

    public func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {
        if case .failure(let error) = outcome {
            outcome = .success(Self.response(for: error, context: context))
        }
    }

    static func response(for error: any Error, context: RequestContext) -> HTTPResponse {
        switch error {
        case let error as GatewayError:
            return error.response
        case let answer as RelayedAnswer:
            return answer.response
        case let error as HTTPBodyError:
            switch error {
            case .tooLarge: return GatewayError.payloadTooLarge.response
            case .timedOut: return GatewayError(.requestTimeout, "request_timeout", "The request body did not arrive in time.").response
            case .connectionClosed: return GatewayError.badRequest("The request body was cut short.").response
            }
        default:
            context.logger.error("http.unhandled_error", ["errorType": .string(String(reflecting: type(of: error)))])
            return GatewayError.internalError.response
        }
    }
}
