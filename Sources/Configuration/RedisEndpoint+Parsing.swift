import Core

extension RedisEndpoint {
    /// Reads BFF_REDIS_URL for `mode` (nil: a mode that is itself invalid,
    /// when a host list is read without the mode's rules). A user without a
    /// password (`redis://app@host`) is taken only when `passwordInFile`
    /// (BFF_REDIS_PASSWORD_FILE) gives the password. The problem never
    /// quotes the text, which may hold a password.
    static func parse(_ text: String, mode: RedisMode? = .single, passwordInFile: Bool = false)
        -> Result<RedisEndpoint, ValueProblem> {
        let lowered = text.lowercased()
        let tls = lowered.hasPrefix("rediss://")
        guard tls || lowered.hasPrefix("redis://") else {
            return .failure(ValueProblem("must be a URL of the form redis://[[user]:password@]host[:port][/db], "
                + "or rediss:// for TLS"))
        }
        var rest = text.dropFirst(tls ? "rediss://".count : "redis://".count)
        var endpoint = RedisEndpoint(mode: mode ?? .single, nodes: [], tls: tls ? RedisTLSFiles() : nil)
        if let at = rest.lastIndex(of: "@") {
            switch parseUserInfo(rest[..<at], passwordInFile: passwordInFile) {
            case .success(let (username, password)): (endpoint.username, endpoint.password) = (username, password)
            case .failure(let problem): return .failure(problem)
            }
            rest = rest[rest.index(after: at)...]
        }
        guard !rest.contains("?"), !rest.contains("#") else {
            return .failure(ValueProblem("must not have a query or fragment"))
        }
        let slash = rest.firstIndex(of: "/")
        if let slash {
            let databaseText = rest[rest.index(after: slash)...]
            if !databaseText.isEmpty {
                guard let database = Lexical.unsignedInteger(databaseText), database <= 65535 else {
                    return .failure(ValueProblem("the database must be a number from 0 to 65535"))
                }
                endpoint.database = database
            }
        }
        if mode == .cluster, endpoint.database != 0 {
            return .failure(ValueProblem("must name database 0 or none, since Redis Cluster has only database 0 "
                + "(BFF_REDIS_MODE is cluster)"))
        }
        let hosts = rest[..<(slash ?? rest.endIndex)].split(separator: ",", omittingEmptySubsequences: false)
        if hosts.count > 1, mode == .single {
            return .failure(ValueProblem("lists \(hosts.count) hosts, but BFF_REDIS_MODE single takes exactly one; "
                + "a list is for BFF_REDIS_MODE sentinel (the sentinels) or cluster (the seed nodes)"))
        }
        for authority in hosts {
            switch parseNode(authority, defaultPort: endpoint.mode.defaultPort) {
            case .success(let node): endpoint.nodes.append(node)
            case .failure(let problem): return .failure(problem)
            }
        }
        guard Set(endpoint.nodes).count == endpoint.nodes.count else {
            return .failure(ValueProblem("lists the same host and port twice"))
        }
        return .success(endpoint)
    }

    /// `[user]:password` (the password percent-decoded), or a bare `user`
    /// when the password comes from a file.
    private static func parseUserInfo(_ userInfo: Substring, passwordInFile: Bool)
        -> Result<(String?, Secret?), ValueProblem> {
        guard let colon = userInfo.firstIndex(of: ":") else {
            guard passwordInFile else {
                return .failure(ValueProblem("write the password as :password@ before the host, or give it in "
                    + "BFF_REDIS_PASSWORD_FILE"))
            }
            return .success((userInfo.isEmpty ? nil : String(userInfo), nil))
        }
        let user = userInfo[..<colon]
        guard let password = PercentDecoding.decode(userInfo[userInfo.index(after: colon)...]),
              !password.isEmpty else {
            return .failure(ValueProblem("the password is empty or badly percent-encoded"))
        }
        return .success((user.isEmpty ? nil : String(user), Secret(password)))
    }

    /// `host[:port]` or `[IPv6][:port]`.
    private static func parseNode(_ authority: Substring, defaultPort: UInt16) -> Result<RedisNode, ValueProblem> {
        let host: String
        let portText: Substring?
        switch Lexical.splitHostAndPort(authority) {
        case .success(let parts): (host, portText) = parts
        case .failure(let problem): return .failure(problem)
        }
        guard let portText else { return .success(RedisNode(host: host, port: defaultPort)) }
        guard let port = Lexical.port(portText, allowZero: false) else {
            return .failure(ValueProblem("the port must be a number from 1 to 65535"))
        }
        return .success(RedisNode(host: host, port: port))
    }
}
