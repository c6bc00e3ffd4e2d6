import HTTPCodec

/// An upstream response whose head has arrived and whose body is still
/// coming. Read `body` to its end, or drop it (or call `body.cancel()`) to
/// abort the transfer.
public struct HTTPClientStreamingResponse: Sendable {
    /// The final status (never a 1xx).
    public var status: HTTPStatus
    /// As in `HTTPClientResponse.headers`.
    public var headers: HTTPHeaders
    /// The body, still arriving.
    public var body: HTTPClientResponseBody
}
