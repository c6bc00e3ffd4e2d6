/// Settings that pass validation but are risky where the gateway runs:
/// printed by `--check-config` and logged at start (`config.caution`).
extension GatewayConfig {
    /// Descriptors kept free beside the client connections: Redis, Modgud,
    /// the listeners, the log, upstream connections at the margin.
    public static let descriptorHeadroom = 1024

    /// The connection cap the open-file limit allows: the configured cap,
    /// or the limit less `descriptorHeadroom` when that is lower, so that
    /// new clients wait in the kernel's backlog rather than every open
    /// call (Redis, Modgud, upstreams) failing for want of a descriptor.
    /// A limit of 0 is unknown and changes nothing.
    public func connectionCap(openFileLimit: UInt64) -> Int {
        guard openFileLimit > 0 else { return maxConnections }
        let fitting = Int(clamping: openFileLimit) - Self.descriptorHeadroom
        return max(1, min(maxConnections, fitting))
    }

    /// One sentence per risky setting, naming the settings and the numbers.
    public func cautions(openFileLimit: UInt64) -> [String] {
        var cautions: [String] = []
        if modgudURL != nil, shutdownTimeout < modgudTimeout + .seconds(5) {
            let drain = Self.milliseconds(shutdownTimeout), needed = Self.milliseconds(modgudTimeout) + 5_000
            cautions.append("BFF_SHUTDOWN_TIMEOUT_MS (\(drain)) is below BFF_MODGUD_TIMEOUT_MS + 5000 (\(needed)): "
                + "a refresh still at Modgud when the gateway stops may lose its rotated token, which ends that "
                + "user's session")
        }
        let proxying = 2 * maxConnections + Self.descriptorHeadroom
        if openFileLimit > 0, openFileLimit < UInt64(proxying) {
            let cap = connectionCap(openFileLimit: openFileLimit)
            let capped = cap < maxConnections ? "; connections are capped at \(cap)" : ""
            cautions.append("the open-file limit (\(openFileLimit)) is below 2 × BFF_MAX_CONNECTIONS + "
                + "\(Self.descriptorHeadroom) (\(proxying)): a proxied request holds two descriptors, so past the "
                + "limit upstream calls fail with 502\(capped); raise the limit (LimitNOFILE, ulimit -n) or lower "
                + "BFF_MAX_CONNECTIONS")
        }
        return cautions + proxyTrustCautions() + exposureCautions()
    }

    /// The opt-outs of ``ConfigLoader``'s exposure checks in use: a session
    /// cookie without `__Host-`, each host reached over plain `http`.
    func exposureCautions() -> [String] {
        var cautions: [String] = []
        if allowInsecureCookieName, sessionCookieLacksHostPrefix {
            cautions.append("BFF_SESSION_COOKIE (\(sessionCookie)) lacks the \(Self.hostCookiePrefix) prefix and is "
                + "accepted only because BFF_ALLOW_INSECURE_COOKIE_NAME is true: a page on a sibling subdomain or over "
                + "plain http can set or overwrite the session cookie; rename it with the \(Self.hostCookiePrefix) "
                + "prefix and drop BFF_ALLOW_INSECURE_COOKIE_NAME")
        }
        var users: [(host: String, settings: [String])] = []
        func note(_ url: HTTPURL, _ setting: String) {
            guard url.scheme == .http, !url.hostIsLoopback else { return }
            if let index = users.firstIndex(where: { $0.host == url.host }) {
                users[index].settings.append(setting)
            } else {
                users.append((url.host, [setting]))
            }
        }
        if let modgudURL { note(modgudURL, SettingDefinition.modgudURL.name) }
        for (index, route) in routes.enumerated() { note(route.upstream, "\(SettingDefinition.routes.name)[\(index)].upstream") }
        for (host, settings) in users {
            cautions.append("\(settings.joined(separator: ", ")) \(settings.count == 1 ? "reaches" : "reach") \(host) "
                + "over plain http, accepted only because BFF_ALLOW_HTTP_HOSTS names it: what is sent there (tokens, "
                + "the client secret for Modgud) crosses that network unencrypted; use https unless the network is "
                + "private to the gateway")
        }
        return cautions
    }
}
