import Core
import HTTP

/// An error rendered as `{"error":"<code>","error_description":"<one
/// sentence>"}` with its status and any extra fields (such as
/// `Retry-After`), never cached: the errors a router and its endpoints
/// answer with.
public struct HTTPError: HTTPResponseError, Equatable {
    /// The response's status.
    public let status: HTTPStatus
    /// A short machine-readable code (`invalid_request`).
    public let code: String
    /// One sentence for a person; never a secret or a value the client sent.
    public let description: String
    /// Fields beyond `Content-Type` and `Cache-Control`.
    public var headers: HTTPHeaders

    /// An error with `status`, `code` and `description`, and `headers` besides.
    public init(_ status: HTTPStatus, _ code: String, _ description: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.description = description
        self.headers = headers
    }

    /// `headers`, with the JSON body's type and `Cache-Control: no-store`.
    public var responseHeaders: HTTPHeaders {
        var headers = headers
        headers.set("Content-Type", "application/json")
        headers.set("Cache-Control", "no-store")
        return headers
    }

    /// `{"error":"<code>","error_description":"<description>"}`.
    public var responseBody: [UInt8] {
        JSON.object(["error": .string(code), "error_description": .string(description)]).serialized
    }

    /// The same error, answered with `Set-Cookie: cookie` as well.
    public func withCookie(_ cookie: String) -> HTTPError {
        var error = self
        error.headers.add("Set-Cookie", cookie)
        return error
    }

    /// A 400 `invalid_request` saying what is wrong.
    public static func badRequest(_ description: String) -> HTTPError {
        HTTPError(.badRequest, "invalid_request", description)
    }

    /// No route serves the path.
    public static let notFound = HTTPError(.notFound, "not_found", "No such endpoint.")
    /// The body is larger than the route's limit.
    public static let payloadTooLarge = HTTPError(.payloadTooLarge, "payload_too_large", "The request body is larger than this endpoint accepts.")
    /// An error nobody rendered: the 500 that reveals nothing.
    public static let internalError = HTTPError(.internalServerError, "internal_error", "The gateway could not complete the request.")

    /// The route owning the path serves other methods: `allowed`.
    public static func methodNotAllowed(_ allowed: [HTTPMethod]) -> HTTPError {
        HTTPError(.methodNotAllowed, "method_not_allowed", "This endpoint does not accept that method.",
                  headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
    }
}
