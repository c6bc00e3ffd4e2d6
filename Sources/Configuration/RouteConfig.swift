/// One API route: requests whose path starts with ``prefix`` are proxied to
/// ``upstream`` with the token ``token`` names.
///
/// JSON form (an element of BFF_ROUTES):
/// `{"prefix":"/api/","upstream":"http://api:8080/base/","token":"user",
///   "resource":"https://api.example.com","methods":["GET","POST"],"maxBodyBytes":1048576}`
public struct RouteConfig: Sendable, Hashable {
    /// Which access token the proxy attaches.
    public enum TokenMode: String, Sendable, Hashable, CaseIterable {
        /// The session's access token; no session → 401.
        case user
        /// A client-credentials token of the gateway itself.
        case client
        /// The session's token when there is a session, none otherwise.
        case userOrAnonymous = "user-or-anonymous"
        /// No token; the request is passed on as it is (cookies still stripped).
        case none

        /// Whether the mode needs tokens from Modgud.
        public var needsModgud: Bool { self != .none }
    }

    /// Starts and ends with `/`, never under `/bff/`.
    public var prefix: String
    /// Where requests go: the part of the path after ``prefix`` is appended
    /// to the upstream's path, which always ends with `/`.
    public var upstream: HTTPURL
    public var token: TokenMode
    /// The RFC 8707 resource (audience) to ask tokens for; nil for the default.
    public var resource: String?
    /// The methods allowed, upper-case, never TRACE, TRACK or CONNECT; nil
    /// allows the proxy's default methods (GET, HEAD, POST, PUT, PATCH,
    /// DELETE, OPTIONS).
    public var methods: [String]?
    /// The largest request body accepted; nil sets no limit of the gateway's own.
    public var maxBodyBytes: Int?

    public init(prefix: String, upstream: HTTPURL, token: TokenMode, resource: String? = nil,
                methods: [String]? = nil, maxBodyBytes: Int? = nil) {
        self.prefix = prefix
        self.upstream = upstream
        self.token = token
        self.resource = resource
        self.methods = methods
        self.maxBodyBytes = maxBodyBytes
    }

    /// The largest `maxBodyBytes` accepted: 1 TiB.
    public static let bodyLimitRange = 0...(1 << 40)

    /// Whether `path` belongs to this route.
    public func matches(path: some StringProtocol) -> Bool {
        path.hasPrefix(prefix)
    }
}

extension RouteConfig: CustomStringConvertible {
    /// `/api/ → http://api:8080/base/ (token user)`.
    public var description: String {
        var text = "\(prefix) → \(upstream) (token \(token.rawValue)"
        if let resource { text += ", resource \(resource)" }
        if let methods { text += ", methods \(methods.joined(separator: ","))" }
        if let maxBodyBytes { text += ", maxBodyBytes \(maxBodyBytes)" }
        return text + ")"
    }
}
