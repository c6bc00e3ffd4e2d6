/// An engine that carries `HTTPClient`'s exchanges: the client's own
/// HTTP/1.1 connections (`OwnConnectionTransport`, plain `http` only) or
/// libcurl's multi interface (`CurlTransport`, everything). The client
/// makes its engines once, from its configuration
/// (`HTTPClientConfiguration.ownPlainHTTP`), and holds them as concrete
/// types: a request pays no dynamic dispatch to reach one.
protocol UpstreamTransport: AnyObject, Sendable {
    /// Whether this engine can carry `request`.
    func carries(_ request: HTTPClientRequest) -> Bool

    /// Sends `request` (already validated) with a body streamed from
    /// `body` (or `request.body` when nil), and returns once the response
    /// head has arrived; the body follows, flow-controlled. A request the
    /// engine cannot carry fails as `.invalidRequest`.
    func stream(_ request: HTTPClientRequest, body: HTTPClientRequestBody?) async throws(HTTPClientError)
        -> HTTPClientStreamingResponse

    /// Ends every running exchange with `.cancelled` and closes the
    /// engine's connections. The loops must still be running.
    func shutdown() async
}
