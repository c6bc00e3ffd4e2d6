import Core

extension RouteConfig {
    /// Methods a route's `methods` may not list.
    static let refusedMethods: Set<String> = ["TRACE", "TRACK", "CONNECT"]

    /// The keys a route object may have.
    static let keys = ["prefix", "upstream", "token", "resource", "methods", "maxBodyBytes"]

    /// Reads BFF_ROUTES (JSON text). Every problem is returned, each named
    /// `BFF_ROUTES[index].key`; URLs are never quoted. An upstream over
    /// plain `http` must be loopback or in `allowedHTTPHosts` (nil skips
    /// that check).
    static func parseList(_ text: String, setting: String,
                          allowedHTTPHosts: [String]?) -> ([RouteConfig], [ConfigError]) {
        let json: JSON
        do {
            json = try JSON.parse(text, limits: JSONValue.limits)
        } catch {
            return ([], [ConfigError(setting: setting, message: "is not valid JSON (\(error))")])
        }
        guard let array = json.arrayValue else {
            return ([], [ConfigError(setting: setting, message: "must be a JSON array of route objects")])
        }
        var routes: [RouteConfig] = []
        var errors: [ConfigError] = []
        var seen: [String: Int] = [:]
        for (index, element) in array.enumerated() {
            let name = "\(setting)[\(index)]"
            guard case .object(let object) = element else {
                errors.append(ConfigError(setting: name, message: "must be an object"))
                continue
            }
            let (route, problems) = parse(object, name: name, allowedHTTPHosts: allowedHTTPHosts)
            errors += problems
            guard let route else { continue }
            if let first = seen[route.prefix] {
                errors.append(ConfigError(setting: name + ".prefix",
                                          message: "\"\(route.prefix)\" is already used by \(setting)[\(first)]"))
                continue
            }
            seen[route.prefix] = index
            routes.append(route)
        }
        return (routes, errors)
    }

    private static func parse(_ object: JSONObject, name: String,
                              allowedHTTPHosts: [String]?) -> (RouteConfig?, [ConfigError]) {
        var errors: [ConfigError] = []
        func problem(_ key: String, _ message: String) {
            errors.append(ConfigError(setting: "\(name).\(key)", message: message))
        }
        for key in object.keys.sorted() where !keys.contains(key) {
            let hint = Lexical.suggestion(for: key, among: keys).map { "; did you mean \($0)?" } ?? ""
            errors.append(ConfigError(setting: name, message: "unknown key \"\(key)\"\(hint)"))
        }

        var prefix: String?
        if let text = requiredString(object, "prefix", problem) {
            if let message = prefixProblem(text) { problem("prefix", message) } else { prefix = text }
        }
        var upstream: HTTPURL?
        if let text = requiredString(object, "upstream", problem) {
            switch HTTPURL.parse(text) {
            case .failure(let failure): problem("upstream", failure.message)
            case .success(let url) where !url.path.hasSuffix("/"):
                problem("upstream", "the path must end with / (the rest of the request path is appended)")
            case .success(let url): upstream = url
            }
        }
        var token: TokenMode?
        if let text = requiredString(object, "token", problem) {
            token = TokenMode(rawValue: text)
            if token == nil {
                problem("token", "\"\(text)\" is not one of \(TokenMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        var resource: String?
        if let value = object["resource"], !value.isNull {
            if let text = value.stringValue, isAbsoluteURI(text) {
                resource = text
                if token == RouteConfig.TokenMode.none { problem("resource", "has no effect with token none") }
            } else {
                problem("resource", "must be an absolute URI without a fragment (RFC 8707)")
            }
        }
        var methods: [String]?
        if let value = object["methods"], !value.isNull {
            methods = parseMethods(value) { problem("methods", $0) }
        }
        var maxBodyBytes: Int?
        if let value = object["maxBodyBytes"], !value.isNull {
            if let number = value.intValue, bodyLimitRange.contains(number) {
                maxBodyBytes = number
            } else {
                problem("maxBodyBytes", "must be an integer from 0 to \(bodyLimitRange.upperBound)")
            }
        }
        if let upstream, let allowedHTTPHosts {
            let exposed = token == RouteConfig.TokenMode.none ? "requests and answers" : "the access token sent with each request"
            if let message = ConfigLoader.plainHTTPRefusal(upstream, exposing: exposed, allowed: allowedHTTPHosts) {
                problem("upstream", message)
            }
        }
        guard errors.isEmpty, let prefix, let upstream, let token else { return (nil, errors) }
        return (RouteConfig(prefix: prefix, upstream: upstream, token: token, resource: resource,
                            methods: methods, maxBodyBytes: maxBodyBytes), [])
    }

    private static func requiredString(_ object: JSONObject, _ key: String,
                                       _ problem: (String, String) -> Void) -> String? {
        guard let value = object[key], !value.isNull else {
            problem(key, "is required")
            return nil
        }
        guard let text = value.stringValue else {
            problem(key, "must be a string")
            return nil
        }
        return text
    }

    /// Why `prefix` is refused, or nil.
    static func prefixProblem(_ prefix: String) -> String? {
        guard prefix.hasPrefix("/"), prefix.hasSuffix("/") else {
            return "\"\(prefix)\" must start and end with /"
        }
        guard prefix.utf8.allSatisfy({ Lexical.isPathCharacter($0) && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: "%") }) else {
            return "\"\(prefix)\" may hold only unencoded path characters (no %, ?, #, spaces or controls)"
        }
        let segments = prefix.dropFirst().dropLast().split(separator: "/", omittingEmptySubsequences: false)
        guard prefix == "/" || segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            return "\"\(prefix)\" must not contain empty, . or .. segments"
        }
        guard !prefix.lowercased().hasPrefix("/bff/") else {
            return "\"\(prefix)\" is under /bff/, which the gateway's own endpoints use"
        }
        return nil
    }

    private static func parseMethods(_ value: JSON, _ problem: (String) -> Void) -> [String]? {
        guard let list = value.arrayValue, !list.isEmpty else {
            problem("must be a non-empty array of method names")
            return nil
        }
        var methods: [String] = []
        var valid = true
        for item in list {
            guard let method = item.stringValue, !method.isEmpty, method.utf8.allSatisfy(Lexical.isTokenCharacter) else {
                problem("each method must be an HTTP token such as \"GET\"")
                valid = false
                continue
            }
            guard !refusedMethods.contains(method.uppercased()) else {
                problem("\"\(method)\" is never proxied: TRACE and TRACK echo the request back, the attached token "
                    + "with it, and CONNECT opens a tunnel through the gateway; remove it from the list")
                valid = false
                continue
            }
            guard method == method.uppercased() else {
                problem("\"\(method)\" must be upper-case (methods are case-sensitive)")
                valid = false
                continue
            }
            if !methods.contains(method) { methods.append(method) }
        }
        return valid ? methods : nil
    }

    /// `scheme:rest` with an RFC 3986 scheme, no fragment, no whitespace.
    private static func isAbsoluteURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), let first = text.utf8.first,
              (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else { return false }
        let scheme = text[..<colon]
        let schemeValid = scheme.utf8.allSatisfy {
            Lexical.isDigit($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || "+-.".utf8.contains($0)
        }
        return schemeValid && text.index(after: colon) < text.endIndex && !text.contains("#")
            && text.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }
}
