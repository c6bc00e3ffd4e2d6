/// Options one route carries into the middleware chain.
public struct RouteOptions: Sendable {
    /// The largest request body the endpoint reads.
    public var maxBodyBytes: Int
    /// Whether a CSRF stage guards the route. On by default; off only for
    /// browser navigations and server-to-server endpoints.
    public var csrf: Bool

    /// Options with the defaults: a 64 KiB body limit, CSRF on.
    public init(maxBodyBytes: Int = 64 * 1024, csrf: Bool = true) {
        self.maxBodyBytes = maxBodyBytes
        self.csrf = csrf
    }
}
