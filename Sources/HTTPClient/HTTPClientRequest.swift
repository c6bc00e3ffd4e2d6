import HTTP

/// One upstream request. Redirects are never followed. `Host` comes from
/// the URL unless a `Host` field is given; `Content-Length` and
/// `Transfer-Encoding` fields are ignored (framing follows the body); empty
/// `Expect:` and `Accept:` are sent unless given, so libcurl adds neither.
public struct HTTPClientRequest: Sendable {
    /// Any token; `GET` by default.
    public var method: HTTPMethod
    /// An absolute `http` or `https` URL.
    public var url: String
    /// Sent in order, repeated names included.
    public var headers: HTTPHeaders
    /// A complete body. `POST`, `PUT` and `PATCH` without one send an empty
    /// body (`Content-Length: 0`).
    public var body: [UInt8]?
    /// Overrides `HTTPClientConfiguration.timeout` for this request.
    public var timeout: Duration?
    /// Overrides the response size limit for this request (and sets one for
    /// a stream, which otherwise has none).
    public var maxResponseBytes: Int?
    /// Asks for a compressed response (`Accept-Encoding` with what libcurl
    /// supports) and decodes it; off by default, so bodies pass unchanged.
    public var decodeContentEncoding: Bool
    /// Whether cancelling the calling task aborts the request (the
    /// default). Off for a caller whose task is never cancelled, such as a
    /// server's request worker: a plain-`http` `stream` then waits for its
    /// head without a cancellation handler, whose status-record updates
    /// were a cost on every proxied request; the timeout still bounds it.
    /// Other requests (`execute`, `https`, decoded bodies) ignore it.
    public var followsTaskCancellation = true

    /// A request; only `url` is required.
    public init(method: HTTPMethod = .get, url: String, headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8]? = nil, timeout: Duration? = nil, maxResponseBytes: Int? = nil,
                decodeContentEncoding: Bool = false) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.decodeContentEncoding = decodeContentEncoding
    }
}
