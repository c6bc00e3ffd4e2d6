import Configuration
import HTTP

/// What a route's relay does to the upstream's answer beyond the fixed
/// filtering (Docs/proxy.md, "What the browser receives"), worked out once
/// per route at registration.
struct AnswerRules: Sendable {
    /// The answer may depend on the browser's session (`user` and
    /// `user-or-anonymous` routes): a shared cache in front of the gateway
    /// must not keep it for other browsers, since it sees the cookie but
    /// not the token the upstream saw.
    let personal: Bool
    /// The route's upstream base, whose absolute URLs in `Location` and
    /// `Content-Location` become `publicBase` plus the rest.
    let upstream: HTTPURL
    /// The public origin and the route's prefix, without its final `/`.
    let publicBase: String

    init(route: RouteConfig, publicOrigin: WebOrigin) {
        personal = route.token == .user || route.token == .userOrAnonymous
        upstream = route.upstream
        publicBase = publicOrigin.url.origin + route.prefix.dropLast()
    }

    // MARK: Caching

    /// The `Cache-Control` of a personal answer, from the upstream's values
    /// (its fields joined): `private` first, then the upstream's other
    /// directives as written, except `public`, `s-maxage` and a `private`
    /// that names fields (a bare one replaces it). `no-store` and the
    /// browser's own `max-age` stay.
    static func privateCacheControl(_ upstream: [String]) -> String {
        var kept = ["private"]
        for value in upstream {
            for directive in directives(value) {
                let name = directive.prefix { $0 != "=" }.trimmingSpacesAndTabs.lowercased()
                if name == "public" || name == "s-maxage" || name == "private" { continue }
                kept.append(String(directive))
            }
        }
        return kept.joined(separator: ", ")
    }

    /// Whether a `Vary` value already covers `Cookie` (it names `Cookie` or `*`).
    static func varyCoversCookie(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        directives(String(decoding: value, as: UTF8.self)).contains { $0 == "*" || $0.equalsIgnoringASCIICase("cookie") }
    }

    /// A field value's comma-separated items, trimmed, empty ones left
    /// out; a comma inside a quoted string does not split.
    private static func directives(_ value: String) -> [Substring] {
        var items: [Substring] = []
        var (start, quoted, escaped) = (value.startIndex, false, false)
        for index in value.indices {
            let character = value[index]
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                items.append(value[start..<index])
                start = value.index(after: index)
            }
        }
        items.append(value[start...])
        return items.map(\.trimmingSpacesAndTabs).filter { !$0.isEmpty }
    }

    // MARK: Locations

    /// `value` with the upstream's base replaced by the public origin and
    /// the route's prefix, when it is an absolute URL at or below the
    /// base (same scheme, host and port; its path the base's or below it);
    /// nil for any other value, which passes as it is.
    func publicLocation(_ value: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: value, as: UTF8.self)
        guard text.utf8.count > 7, text.prefix(4).equalsIgnoringASCIICase("http") else { return nil }
        let end = text.firstIndex { $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let url = HTTPURL(String(text[..<end])), url.scheme == upstream.scheme, url.host == upstream.host,
              url.port == upstream.port else { return nil }
        // A dot segment would step out of the route's prefix once the
        // browser resolves it: such a value is left as it is.
        guard !Self.hasDotSegment(url.path) else { return nil }
        let rest: String
        if url.path.hasPrefix(upstream.path) {
            rest = "/" + url.path.dropFirst(upstream.path.count)
        } else if url.path + "/" == upstream.path {
            rest = ""
        } else {
            return nil
        }
        return publicBase + rest + text[end...]
    }

    /// Whether a path has a `.` or `..` segment, plain or percent-encoded.
    private static func hasDotSegment(_ path: String) -> Bool {
        path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            let plain = segment.lowercased().replacing("%2e", with: ".")
            return plain == "." || plain == ".."
        }
    }
}
