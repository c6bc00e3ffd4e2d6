import HTTP

/// A request body that could not be read: too large (413), too slow
/// (408) or cut short (400), rendered as an `HTTPError`.
extension HTTPBodyError: HTTPResponseError {
    var rendered: HTTPError {
        switch self {
        case .tooLarge: .payloadTooLarge
        case .timedOut: HTTPError(.requestTimeout, "request_timeout", "The request body did not arrive in time.")
        case .connectionClosed: .badRequest("The request body was cut short.")
        }
    }

    /// 413, 408 or 400.
    public var status: HTTPStatus { rendered.status }
    /// The JSON body's fields.
    public var responseHeaders: HTTPHeaders { rendered.responseHeaders }
    /// `{"error","error_description"}`.
    public var responseBody: [UInt8] { rendered.responseBody }
}
