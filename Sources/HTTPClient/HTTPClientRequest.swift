import HTTPCodec

/// One upstream request. Redirects are never followed. `Host` comes from
/// the URL unless a `Host` field is given; `Content-Length` and
/// `Transfer-Encoding` fields are ignored (framing follows the body); empty
/// `Expect:` and `Accept:` are sent unless given, so libcurl adds neither.
public struct HTTPClientRequest: Sendable {
    /// Any token; `GET` by default.
    public var method: HTTPMethod
    /// An absolute `http` or `https` URL. A request made on a base is that
    /// base followed by its suffix (put together when asked for).
    public var url: String {
        get {
            switch location {
            case .url(let url): url
            case .based(let base, let suffix): base.url + suffix
            }
        }
        set { location = .url(newValue) }
    }
    /// Where the request goes: a whole URL, or a base and what follows it.
    enum Location {
        case url(String)
        case based(HTTPClientBase, String)
    }
    private(set) var location: Location
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
    /// cost every proxied request (Docs/performance.md); the timeout
    /// still bounds it.
    /// Other requests (`execute`, `https`, decoded bodies) ignore it.
    public var followsTaskCancellation = true

    /// A request; only `url` is required.
    public init(method: HTTPMethod = .get, url: String, headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8]? = nil, timeout: Duration? = nil, maxResponseBytes: Int? = nil,
                decodeContentEncoding: Bool = false) {
        self.method = method
        location = .url(url)
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.decodeContentEncoding = decodeContentEncoding
    }

    /// A request to `base` followed by `suffix` (the rest of a path and the
    /// query): the same request as one to the URL `base.url + suffix`,
    /// without taking that URL apart again for every request.
    public init(method: HTTPMethod = .get, base: HTTPClientBase, appending suffix: String,
                headers: HTTPHeaders = HTTPHeaders(), timeout: Duration? = nil) {
        self.method = method
        location = .based(base, suffix)
        self.headers = headers
        self.timeout = timeout
        decodeContentEncoding = false
    }

    /// The target for the client's own connections: a plain `http` URL's
    /// parts, or nil for anything libcurl handles.
    var plainTarget: PlainHTTPTarget? {
        switch location {
        case .url(let url): PlainHTTPTarget(url)
        case .based(let base, let suffix): base.plain?.appending(suffix)
        }
    }
}

/// A URL that requests are made on by appending a path and query to it, as
/// a proxy route appends the rest of the browser's path to its upstream
/// base. Taken apart once, when made; `HTTPClientRequest(base:appending:)`
/// then needs nothing parsed per request. A class, immutable: a request is
/// copied on its way to a connection, and a copy retains one reference.
public final class HTTPClientBase: Sendable {
    /// The URL, as given.
    public let url: String
    /// Its parts, when the client's own connections can serve it.
    let plain: PlainHTTPTarget?
    /// Whether the URL passes `RequestValidation`'s check, made once.
    let isURLText: Bool

    public convenience init(_ url: String) {
        self.init(url, plain: PlainHTTPTarget(url))
    }

    init(_ url: String, plain: PlainHTTPTarget?) {
        self.url = url
        self.plain = plain
        isURLText = RequestValidation.isURLText(url)
    }
}
