import HTTP

/// An error a client may see: it renders as its own response, with its
/// status, fields and body. `ErrorMiddleware` renders every error through
/// this protocol; an error that does not conform becomes a 500 that
/// reveals nothing.
public protocol HTTPResponseError: Error, Sendable {
    /// The response's status.
    var status: HTTPStatus { get }
    /// The response's fields (`Content-Type` among them when it has a body).
    var responseHeaders: HTTPHeaders { get }
    /// The response's body.
    var responseBody: [UInt8] { get }
}

extension HTTPResponseError {
    /// The error as the response a client sees.
    public var response: HTTPResponse {
        HTTPResponse(status: status, headers: responseHeaders, bytes: responseBody)
    }
}
