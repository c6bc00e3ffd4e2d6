/// The nginx `location` blocks that send the gateway's public paths to it:
/// `/bff/`, every route prefix and, with BFF_STATIC_ROOT set, `/` for the
/// files the gateway serves; nothing else (the admin listener is never
/// routed). What `modgud-bff --print-nginx-locations` prints, in the
/// form of Deploy/nginx/modgud-bff.conf: each block `proxy_pass`es to the
/// upstream ``upstream`` and sets only what differs between locations; the
/// server block sets the headers.
///
/// Every block is a `^~` prefix location: nginx picks the longest matching
/// prefix, and `^~` keeps a regular-expression location of the front end
/// (`location ~* \.js$`, say) from taking a gateway path.
public struct NginxLocations: Sendable {
    /// The upstream Deploy/nginx/modgud-bff.conf defines.
    public static let defaultUpstream = "modgud_bff"
    /// The longest another instance's refresh may keep a request waiting.
    static let refreshWait = 20
    /// Time to spare, so the gateway's own answer reaches nginx first.
    static let spare = 15

    /// The configuration the blocks are made from.
    public let config: GatewayConfig
    /// The name in `proxy_pass http://NAME;`.
    public let upstream: String

    /// Blocks for `config` that forward to `upstream`.
    public init(_ config: GatewayConfig, upstream: String = NginxLocations.defaultUpstream) {
        self.config = config
        self.upstream = upstream
    }

    /// The blocks as nginx configuration text (no newline after the last line).
    public var text: String {
        var lines = [
            "# modgud-bff's public paths, from its configuration (modgud-bff --print-nginx-locations).",
            "# For the server {} block of Deploy/nginx/modgud-bff.conf, in place of its locations that",
            "# proxy_pass to the gateway; every other path stays with the front end. Never route",
            "# BFF_ADMIN_LISTEN (\(config.adminListen)).",
        ]
        lines += [""] + block(
            comment: ["The gateway's own endpoints: small JSON bodies. The body limit sits above BFF_MAX_BODY_BYTES",
                      "(\(config.maxBodyBytes)), so the gateway answers an oversized body with its own JSON 413."],
            prefix: "/bff/", bodyLimit: config.maxBodyBytes, streams: false, timeout: bffTimeout)
        for (index, route) in config.routes.enumerated() {
            let limit = route.maxBodyBytes.map { "its maxBodyBytes (\($0))" }
                ?? "BFF_PROXY_MAX_BODY_BYTES (\(config.proxyMaxBodyBytes))"
            var comment = ["BFF_ROUTES[\(index)], token \(route.token.rawValue); bodies stream both ways.",
                           "The body limit sits above \(limit): the gateway's own JSON 413 answers first."]
            if route.prefix == "/" {
                comment.append("Prefix /: every path goes to the gateway; this replaces the front end's location /.")
            }
            lines += [""] + block(comment: comment, prefix: route.prefix,
                                  bodyLimit: route.maxBodyBytes ?? config.proxyMaxBodyBytes, streams: true,
                                  timeout: routeTimeout)
        }
        if let root = config.staticRoot, !config.routes.contains(where: { $0.prefix == "/" }) {
            lines += [""] + block(
                comment: ["BFF_STATIC_ROOT (\(root)): the gateway serves the front end's files, with its page headers",
                          "and single-page fallback; this replaces the front end's location /. To let nginx serve",
                          "that directory itself instead, keep location / with root at it and leave this block out."],
                prefix: "/", bodyLimit: 0, streams: false, timeout: Self.spare)
        }
        return lines.joined(separator: "\n")
    }

    private func block(comment: [String], prefix: String, bodyLimit: Int, streams: Bool, timeout: Int) -> [String] {
        var lines = comment.map { "# " + $0 }
        lines.append("location ^~ \(Self.quoted(prefix)) {")
        lines.append("    proxy_pass http://\(upstream);")
        lines.append("    client_max_body_size \(Self.size(max(2 * bodyLimit, 1024)));")
        if streams {
            lines.append("    proxy_request_buffering off;")
            lines.append("    proxy_buffering off;")
        }
        lines.append("    proxy_read_timeout \(timeout)s;")
        lines.append("    proxy_send_timeout \(timeout)s;")
        lines.append("}")
        return lines
    }

    /// Seconds nginx waits on a `/bff/` request: another instance's refresh,
    /// four Modgud calls in a row at BFF_MODGUD_TIMEOUT_MS, and time to spare
    /// (75 with the defaults).
    var bffTimeout: Int {
        Self.refreshWait + 4 * Self.seconds(config.modgudTimeout) + Self.spare
    }

    /// Seconds nginx waits on a route's request: another instance's refresh,
    /// a refresh of its own at BFF_MODGUD_TIMEOUT_MS, the upstream's
    /// BFF_UPSTREAM_TIMEOUT_MS, and time to spare (75 with the defaults).
    var routeTimeout: Int {
        Self.refreshWait + Self.seconds(config.modgudTimeout) + Self.seconds(config.upstreamTimeout) + Self.spare
    }

    /// Whole seconds, rounded up.
    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }

    /// An nginx size: `128k`, `20m`, `1g`, or bytes.
    static func size(_ bytes: Int) -> String {
        for (unit, factor) in [("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10)] where bytes % factor == 0 {
            return "\(bytes / factor)\(unit)"
        }
        return String(bytes)
    }

    /// A prefix as an nginx word: bare when it holds only characters that
    /// never end or quote one, else in double quotes (a prefix never holds
    /// `"` or `\`).
    static func quoted(_ prefix: String) -> String {
        let bare = prefix.utf8.allSatisfy { byte in
            Lexical.isDigit(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "/._~:@!*+,=&-".utf8.contains(byte)
        }
        return bare ? prefix : "\"\(prefix)\""
    }
}
