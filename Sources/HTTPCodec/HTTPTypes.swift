import Core

/// An HTTP request method: a token, compared case-sensitively (RFC 9110 §9.1).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method's token, as sent.
    public let rawValue: String
    /// The method whose token is `rawValue`.
    @inlinable public init(rawValue: String) { self.rawValue = rawValue }
    /// The method whose token is `rawValue`, without the argument label.
    @inlinable public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The method's token.
    public var description: String { rawValue }

    /// Inlinable: the server compares every request's method.
    @inlinable
    public static func == (a: HTTPMethod, b: HTTPMethod) -> Bool { a.rawValue == b.rawValue }

    /// GET: read the target resource.
    public static let get = HTTPMethod("GET")
    /// HEAD: as GET, but the response carries no body.
    public static let head = HTTPMethod("HEAD")
    /// POST: have the target resource process the enclosed content.
    public static let post = HTTPMethod("POST")
    /// PUT: replace the target resource's state with the enclosed content.
    public static let put = HTTPMethod("PUT")
    /// PATCH: apply partial changes to the target resource (RFC 5789).
    public static let patch = HTTPMethod("PATCH")
    /// DELETE: remove the target resource.
    public static let delete = HTTPMethod("DELETE")
    /// OPTIONS: ask which communication options the target supports.
    public static let options = HTTPMethod("OPTIONS")
    /// CONNECT: open a tunnel to the server the target names.
    public static let connect = HTTPMethod("CONNECT")
    /// TRACE: have the request echoed back, as a loop-back test.
    public static let trace = HTTPMethod("TRACE")
}

/// The protocol version of a message; only 1.0 and 1.1 are spoken.
public enum HTTPVersion: Sendable, Equatable, CustomStringConvertible {
    /// HTTP/1.0, written `HTTP/1.0`.
    case http1_0
    /// HTTP/1.1, written `HTTP/1.1`.
    case http1_1
    /// The version as a start line writes it, `HTTP/1.0` or `HTTP/1.1`.
    public var description: String { self == .http1_0 ? "HTTP/1.0" : "HTTP/1.1" }

    /// Inlinable: the server checks every request's version several times.
    @inlinable
    public static func == (a: HTTPVersion, b: HTTPVersion) -> Bool {
        switch (a, b) {
        case (.http1_0, .http1_0), (.http1_1, .http1_1): true
        default: false
        }
    }
}

/// How the body of a request is delimited (RFC 9112 §6.3).
public enum HTTPBodyFraming: Sendable, Equatable {
    /// No body: the request has neither `Content-Length` nor `Transfer-Encoding`.
    case none
    /// Exactly this many bytes, from `Content-Length`.
    case contentLength(Int)
    /// Chunked (RFC 9112 §7.1), read with a `ChunkedBodyDecoder`.
    case chunked
}

/// A response status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The numeric status code.
    public let code: Int
    /// The status with code `code`.
    @inlinable public init(_ code: Int) { self.code = code }
    /// The code and its reason phrase, such as `404 Not Found`.
    public var description: String { "\(code) \(reasonPhrase)" }

    /// 100 Continue: the client may go on sending the request body.
    public static let `continue` = HTTPStatus(100)
    /// 200 OK: the request succeeded.
    public static let ok = HTTPStatus(200)
    /// 201 Created: the request made a new resource.
    public static let created = HTTPStatus(201)
    /// 204 No Content: the request succeeded, and no body follows.
    public static let noContent = HTTPStatus(204)
    /// 302 Found: the resource sits at another URI for the time being.
    public static let found = HTTPStatus(302)
    /// 303 See Other: the answer is at another URI, to be fetched with GET.
    public static let seeOther = HTTPStatus(303)
    /// 304 Not Modified: the client's cached copy is still current.
    public static let notModified = HTTPStatus(304)
    /// 400 Bad Request: the request is malformed.
    public static let badRequest = HTTPStatus(400)
    /// 401 Unauthorized: valid credentials are missing.
    public static let unauthorized = HTTPStatus(401)
    /// 403 Forbidden: the request is understood but refused.
    public static let forbidden = HTTPStatus(403)
    /// 404 Not Found: no resource is at the target.
    public static let notFound = HTTPStatus(404)
    /// 405 Method Not Allowed: the target does not support the method.
    public static let methodNotAllowed = HTTPStatus(405)
    /// 408 Request Timeout: the request did not arrive in time.
    public static let requestTimeout = HTTPStatus(408)
    /// 413 Content Too Large: the request body exceeds the limit.
    public static let payloadTooLarge = HTTPStatus(413)
    /// 414 URI Too Long: the request target exceeds the limit.
    public static let uriTooLong = HTTPStatus(414)
    /// 415 Unsupported Media Type: the body's media type is not accepted.
    public static let unsupportedMediaType = HTTPStatus(415)
    /// 417 Expectation Failed: the request's `Expect` field cannot be met.
    public static let expectationFailed = HTTPStatus(417)
    /// 429 Too Many Requests: the client is over its rate limit.
    public static let tooManyRequests = HTTPStatus(429)
    /// 431 Request Header Fields Too Large: the head's fields exceed the limit.
    public static let headerFieldsTooLarge = HTTPStatus(431)
    /// 500 Internal Server Error: the server failed unexpectedly.
    public static let internalServerError = HTTPStatus(500)
    /// 501 Not Implemented: the server does not support what the request needs.
    public static let notImplemented = HTTPStatus(501)
    /// 502 Bad Gateway: the upstream server's response is invalid or missing.
    public static let badGateway = HTTPStatus(502)
    /// 503 Service Unavailable: the server cannot handle the request for the time being.
    public static let serviceUnavailable = HTTPStatus(503)
    /// 504 Gateway Timeout: the upstream server did not answer in time.
    public static let gatewayTimeout = HTTPStatus(504)
    /// 505 HTTP Version Not Supported: the request's HTTP version is not spoken.
    public static let httpVersionNotSupported = HTTPStatus(505)

    /// Whether a response with this status may carry a body (RFC 9110 §6.4.1).
    public var allowsBody: Bool { !(code < 200 || code == 204 || code == 304) }

    /// The standard reason phrase for `code`, or `Status <code>` for a code not listed.
    public var reasonPhrase: String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(code)"
        }
    }
}
