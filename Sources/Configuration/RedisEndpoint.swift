import Core

/// Where the session store lives, read from
/// `redis://[[user]:password@]host[:port][/db]`.
///
/// The password is percent-decoded (write `%40` for `@`, `%2F` for `/`,
/// though a raw `@` or `/` in it also works: the last `@` ends it) and kept
/// as a ``Secret``; ``description`` shows it as `<redacted>`. The port
/// defaults to 6379, the database to 0. `rediss://` (TLS) is not supported.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    /// The ACL user (Redis 6+); nil for the default user.
    public var username: String?
    public var password: Secret?
    /// The logical database, `SELECT`ed after connecting.
    public var database: Int

    public init(host: String, port: UInt16 = 6379, username: String? = nil, password: Secret? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// The URL with the password replaced by `<redacted>`.
    public var description: String {
        var userInfo = ""
        if username != nil || password != nil {
            userInfo = (username ?? "") + (password == nil ? "" : ":<redacted>") + "@"
        }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "redis://\(userInfo)\(bracketed):\(port)/\(database)"
    }

    /// Reads the URL; the problem never quotes the text.
    static func parse(_ text: String) -> Result<RedisEndpoint, ValueProblem> {
        let lowered = text.lowercased()
        if lowered.hasPrefix("rediss://") {
            return .failure(ValueProblem("rediss:// (TLS) is not supported; use redis://"))
        }
        guard lowered.hasPrefix("redis://") else {
            return .failure(ValueProblem("must be a URL of the form redis://[:password@]host:port/db"))
        }
        var rest = text.dropFirst("redis://".count)
        var endpoint = RedisEndpoint(host: "")
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard let colon = userInfo.firstIndex(of: ":") else {
                return .failure(ValueProblem("write the password as :password@ before the host"))
            }
            let user = userInfo[..<colon]
            guard let password = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncodingStrictly(),
                  !password.isEmpty else {
                return .failure(ValueProblem("the password is empty or badly percent-encoded"))
            }
            endpoint.username = user.isEmpty ? nil : String(user)
            endpoint.password = Secret(password)
        }
        guard !rest.contains("?"), !rest.contains("#") else {
            return .failure(ValueProblem("must not have a query or fragment"))
        }
        let slash = rest.firstIndex(of: "/")
        let authority = rest[..<(slash ?? rest.endIndex)]
        if let slash {
            let databaseText = rest[rest.index(after: slash)...]
            if !databaseText.isEmpty {
                guard let database = Lexical.unsignedInteger(databaseText), database <= 65535 else {
                    return .failure(ValueProblem("the database must be a number from 0 to 65535"))
                }
                endpoint.database = database
            }
        }
        let portText: Substring?
        switch Lexical.splitHostAndPort(authority) {
        case .success(let parts): (endpoint.host, portText) = parts
        case .failure(let problem): return .failure(problem)
        }
        if let portText {
            guard let port = Lexical.port(portText, allowZero: false) else {
                return .failure(ValueProblem("the port must be a number from 1 to 65535"))
            }
            endpoint.port = port
        }
        return .success(endpoint)
    }
}

extension String {
    /// Decodes `%XX` escapes; nil for a `%` not followed by two hex digits or
    /// bytes that are not UTF-8. (Foundation's version is avoided so that
    /// Core-only code stays small and its behaviour is pinned by tests.)
    func removingPercentEncodingStrictly() -> String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
