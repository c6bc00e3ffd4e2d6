import Core

/// The origin browsers use to reach the gateway (`https://app.example.com`):
/// what `Origin` headers are compared with and where redirects point.
///
/// Scheme, host and an optional port; no path (a lone `/` is tolerated),
/// query or fragment. `http` is accepted only for `localhost`, `*.localhost`
/// and loopback addresses, the hosts where browsers keep `Secure` cookies
/// (the session cookie is `__Host-bff`, which must be `Secure`).
public struct WebOrigin: Sendable, Hashable, CustomStringConvertible {
    public let scheme: HTTPURL.Scheme
    public let host: String
    public let port: UInt16

    /// Parses `text`; nil when it is not an acceptable origin.
    public init?(_ text: String) {
        guard case .success(let origin) = Self.parse(text) else { return nil }
        self = origin
    }

    /// The serialised origin, exactly as a browser sends it in `Origin`:
    /// lower-case, default port left out.
    public var description: String { url.origin }

    /// The origin as a URL with path `/`.
    public var url: HTTPURL { HTTPURL(scheme: scheme, host: host, port: port, path: "/") }

    /// Whether `headerValue` (an `Origin` request header) is this origin.
    public func matches(_ headerValue: some StringProtocol) -> Bool {
        headerValue.lowercased() == description
    }

    static func parse(_ text: String) -> Result<WebOrigin, ValueProblem> {
        let url: HTTPURL
        switch HTTPURL.parse(text) {
        case .success(let parsed): url = parsed
        case .failure(let problem): return .failure(problem)
        }
        guard url.path == "/" else {
            return .failure(ValueProblem("must be an origin: scheme, host and port only, without a path"))
        }
        if url.scheme == .http, !Self.isLoopback(url.host) {
            return .failure(ValueProblem("must use https unless the host is localhost or a loopback address, "
                + "since browsers keep the Secure session cookie only there"))
        }
        return .success(WebOrigin(scheme: url.scheme, host: url.host, port: url.port))
    }

    private init(scheme: HTTPURL.Scheme, host: String, port: UInt16) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Browsers treat `*.localhost` as loopback too.
    private static func isLoopback(_ host: String) -> Bool {
        host.hasSuffix(".localhost") || HTTPURL.isLoopback(host)
    }
}
