import Core

/// Settings that would hand the session cookie or tokens to someone else:
/// a cookie name without `__Host-`, plain `http` to a host off the machine.
/// Each is refused unless its own opt-out setting accepts it (and then
/// ``GatewayConfig/cautions(openFileLimit:)`` names it at every start).
extension ConfigLoader {
    /// BFF_SESSION_COOKIE must start with `__Host-` (case as written), so
    /// that browsers hold it to `Secure`, `Path=/` and no `Domain`.
    static func checkCookiePrefix(_ cookie: String, _ reader: inout SettingReader) {
        guard !cookie.hasPrefix(GatewayConfig.hostCookiePrefix) else { return }
        let name = cookie.count <= 100 ? "\"\(cookie)\" " : ""
        reader.report(.sessionCookie, "\(name)lacks the \(GatewayConfig.hostCookiePrefix) prefix, without which a page "
            + "on a sibling subdomain or over plain http can set or overwrite the session cookie; use a name such as "
            + "__Host-bff, or set \(SettingDefinition.allowInsecureCookieName.name)=true to accept it with a caution "
            + "at every start")
    }

    /// BFF_MODGUD_URL uses `https`, or `http` to a loopback host or one
    /// BFF_ALLOW_HTTP_HOSTS names (route upstreams are checked the same
    /// way as they are parsed).
    static func checkPlainHTTP(modgudURL: HTTPURL, allowed: [String], _ reader: inout SettingReader) {
        if let message = plainHTTPRefusal(modgudURL, exposing: "the client secret, codes and tokens", allowed: allowed) {
            reader.report(.modgudURL, message)
        }
    }

    /// Why `url` may not be used, or nil: plain `http` to a host neither
    /// loopback nor in `allowed`. Names the host, never the URL.
    static func plainHTTPRefusal(_ url: HTTPURL, exposing exposed: String, allowed: [String]) -> String? {
        guard url.scheme == .http, !url.hostIsLoopback, !allowed.contains(normalizedHost(url.host)) else { return nil }
        return "uses plain http to \(url.host), which is not a loopback host: \(exposed) would cross the network "
            + "unencrypted; use https, or add \(url.host) to \(SettingDefinition.allowHTTPHosts.name) if that network "
            + "is private to the gateway"
    }

    /// BFF_ALLOW_HTTP_HOSTS: comma-separated host names or IP addresses
    /// (an IPv6 one with or without brackets), normalised; no scheme, port
    /// or path. Blanks around items are ignored, empty items are not.
    static func parseHostList(_ text: String) -> Result<[String], ValueProblem> {
        guard !text.isEmpty else { return .success([]) }
        var hosts: [String] = []
        var bad: [String] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = Lexical.trimmingWhitespace(item, newlines: false)
            let bracketed = trimmed.hasPrefix("[") && trimmed.hasSuffix("]")
            let bare = bracketed ? String(trimmed.dropFirst().dropLast()) : trimmed
            if bracketed ? bare.contains(":") && IPAddress(bare) != nil : IPAddress(bare) != nil || Lexical.isHostName(bare[...]) {
                let host = normalizedHost(bare)
                if !hosts.contains(host) { hosts.append(host) }
            } else {
                bad.append("\"\(trimmed)\"")
            }
        }
        guard bad.isEmpty else {
            return .failure(ValueProblem("\(bad.joined(separator: ", ")) \(bad.count == 1 ? "is not a" : "are not") "
                + "host name\(bad.count == 1 ? "" : "s") or address\(bad.count == 1 ? "" : "es") "
                + "(like modgud, api.internal or 10.0.0.5; no scheme, port or path)"))
        }
        return .success(hosts)
    }

    /// A host as URLs hold it: an IP literal in canonical form, a name in
    /// lower case.
    static func normalizedHost(_ host: String) -> String {
        IPAddress(host)?.description ?? host.lowercased()
    }
}
