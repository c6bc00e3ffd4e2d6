import Routing

/// An error a client of the gateway may see: Routing's `HTTPError`,
/// rendered as `{"error":"<code>","error_description":"<one sentence>"}`
/// with its status and any extra fields. Every other error becomes a 500
/// that reveals nothing (`ErrorMiddleware`).
public typealias GatewayError = HTTPError
