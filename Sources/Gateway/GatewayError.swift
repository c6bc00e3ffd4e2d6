import Core
import HTTP

/// An error a client may see: rendered as
/// `{"error":"<code>","error_description":"<one sentence>"}` with its
/// status and any extra headers (such as `Retry-After`). Every other error
/// becomes a 500 that reveals nothing.
public struct GatewayError: Error, Sendable, Equatable {
    public let status: HTTPStatus
    public let code: String
    public let description: String
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, _ code: String, _ description: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.description = description
        self.headers = headers
    }

    public var response: HTTPResponse {
        var headers = headers
        headers.set("Content-Type", "application/json")
        headers.set("Cache-Control", "no-store")
        let body = JSON.object(["error": .string(code), "error_description": .string(description)]).serialized
        return HTTPResponse(status: status, headers: headers, bytes: body)
    }

    /// The same error, answered with `Set-Cookie: cookie` as well.
    public func withCookie(_ cookie: String) -> GatewayError {
        var error = self
        error.headers.add("Set-Cookie", cookie)
        return error
    }

    public static func badRequest(_ description: String) -> GatewayError {
        GatewayError(.badRequest, "invalid_request", description)
    }

    public static let notFound = GatewayError(.notFound, "not_found", "No such endpoint.")
    public static let payloadTooLarge = GatewayError(.payloadTooLarge, "payload_too_large", "The request body is larger than this endpoint accepts.")
    public static let internalError = GatewayError(.internalServerError, "internal_error", "The gateway could not complete the request.")

    public static func methodNotAllowed(_ allowed: [HTTPMethod]) -> GatewayError {
        GatewayError(.methodNotAllowed, "method_not_allowed", "This endpoint does not accept that method.",
                     headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
    }
}
