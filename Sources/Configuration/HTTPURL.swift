import Core

/// An absolute `http` or `https` URL without user info, query or fragment:
/// the Modgud base URL, a route's upstream.
///
/// The scheme and host are lower-cased; `port` is always filled in (80 or
/// 443 when not written); `path` starts with `/` (just `/` when none was
/// written). Percent-escapes in the path are kept as written.
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public enum Scheme: String, Sendable, Hashable {
        case http
        case https

        /// 80 or 443.
        public var defaultPort: UInt16 { self == .http ? 80 : 443 }
    }

    public let scheme: Scheme
    /// A DNS name or an IP literal; IPv6 without brackets.
    public let host: String
    public let port: UInt16
    public let path: String

    /// Parses `text`; nil when it is not such a URL.
    public init?(_ text: String) {
        guard case .success(let url) = Self.parse(text) else { return nil }
        self = url
    }

    init(scheme: Scheme, host: String, port: UInt16, path: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }

    /// Whether `host` is an IPv6 literal (written in brackets in a URL).
    public var hostIsIPv6: Bool { host.contains(":") }

    /// Whether the host is reached without leaving the machine: `localhost`
    /// or a loopback address (127.0.0.0/8, `::1`).
    public var hostIsLoopback: Bool { Self.isLoopback(host) }

    /// Whether `host` (a name or a bare IP literal) is `localhost` or a
    /// loopback address.
    static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        switch IPAddress(host) {
        case .v4(let value)?: return value >> 24 == 127
        case .v6(let high, let low)?: return high == 0 && low == 1
        case nil: return false
        }
    }

    /// `host[:port]` as in a `Host` header, the port left out when it is the
    /// scheme's default.
    public var authority: String {
        let bracketed = hostIsIPv6 ? "[\(host)]" : host
        return port == scheme.defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    /// `scheme://authority`, the way a browser writes an `Origin`.
    public var origin: String { "\(scheme.rawValue)://\(authority)" }

    /// The normalised URL.
    public var description: String { origin + path }

    /// Reads the URL; the problem never quotes the text (it may carry a password).
    static func parse(_ text: String) -> Result<HTTPURL, ValueProblem> {
        guard let separator = text.firstRange(of: "://") else {
            return .failure(ValueProblem("must be an absolute URL starting with http:// or https://"))
        }
        guard let scheme = Scheme(rawValue: text[..<separator.lowerBound].lowercased()) else {
            return .failure(ValueProblem("the scheme must be http or https"))
        }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let tail = rest[authorityEnd...]
        guard !authority.contains("@") else {
            return .failure(ValueProblem("must not contain a user name or password"))
        }
        guard !tail.contains("?"), !tail.contains("#") else {
            return .failure(ValueProblem("must not have a query or fragment"))
        }
        guard tail.utf8.allSatisfy(Lexical.isPathCharacter) else {
            return .failure(ValueProblem("the path has characters that must be percent-encoded"))
        }
        let host: String
        let portText: Substring?
        switch Lexical.splitHostAndPort(authority) {
        case .success(let parts): (host, portText) = parts
        case .failure(let problem): return .failure(problem)
        }
        var port = scheme.defaultPort
        if let portText {
            guard let written = Lexical.port(portText, allowZero: false) else {
                return .failure(ValueProblem("the port must be a number from 1 to 65535"))
            }
            port = written
        }
        return .success(HTTPURL(scheme: scheme, host: host, port: port, path: tail.isEmpty ? "/" : String(tail)))
    }
}
