import HTTPCodec

/// A complete upstream response.
public struct HTTPClientResponse: Sendable {
    /// The final status (never a 1xx).
    public var status: HTTPStatus
    /// Every field of the final response head, in order, repeated names
    /// (`Set-Cookie`, `RateLimit-*`) kept; the heads of any 1xx responses
    /// and any trailers are not included.
    public var headers: HTTPHeaders
    /// The body as received (decoded only if the request asked for it).
    public var body: [UInt8]

    /// A response, for tests and fakes.
    public init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
