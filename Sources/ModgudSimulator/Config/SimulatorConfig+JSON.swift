import Core
import System

extension SimulatorConfig {
    /// Applies a JSON document (the config file's shape, or a
    /// `POST /dev/config` patch): keys present replace values, keys absent
    /// leave them. Returns every problem found; the caller decides whether
    /// to keep a configuration that has some.
    public mutating func apply(_ json: JSON) -> ConfigProblems {
        var problems = ConfigProblems()
        guard case .object = json else {
            problems.add("the configuration must be a JSON object")
            return problems
        }
        let reader = ConfigReader(json)
        if let text = reader.string("listen", &problems) {
            if let address = Self.parseListen(text) { listen = address } else { problems.add("listen must be host:port") }
        }
        if reader.has("publicUrl") {
            if reader.isNull("publicUrl") { publicURL = nil }
            else if let text = reader.string("publicUrl", &problems) {
                if let url = Self.normalizePublicURL(text) { publicURL = url } else { problems.add("publicUrl must be an http(s) URL") }
            }
        }
        if reader.has("magicLinkPage") {
            if reader.isNull("magicLinkPage") { magicLinkPage = nil }
            else if let text = reader.string("magicLinkPage", &problems) {
                if let url = Self.normalizePublicURL(text) { magicLinkPage = url }
                else { problems.add("magicLinkPage must be an http(s) URL") }
            }
        }
        reader.update(&loops, reader.int("loops", &problems, min: 1))
        reader.update(&devEndpoints, reader.bool("dev", &problems))
        reader.update(&logLevel, reader.string("logLevel", &problems))
        reader.update(&logMail, reader.bool("logMail", &problems))
        reader.update(&requestLogCapacity, reader.int("requestLogCapacity", &problems, min: 1))
        applyShorthands(reader, &problems)
        if let section = reader.object("realm", &problems) { realm.apply(section, &problems) }
        if let section = reader.object("tokens", &problems) { tokens.apply(section, &problems) }
        if let section = reader.object("jitter", &problems) { jitter.apply(section, &problems) }
        if let section = reader.object("responses", &problems) { responses.apply(section, &problems) }
        if let section = reader.object("rateLimits", &problems) { rateLimits.apply(section, &problems) }
        if let items = reader.array("clients", &problems) { applyClients(items, &problems) }
        if let items = reader.array("users", &problems) { applyUsers(items, &problems) }
        return problems
    }

    /// Flat names for the switches tests flip most often.
    private mutating func applyShorthands(_ reader: ConfigReader, _ problems: inout ConfigProblems) {
        reader.update(&realm.nativeGrants, reader.bool("nativeGrants", &problems))
        reader.update(&realm.recentSignInRequired, reader.bool("recentSignIn", &problems))
        reader.update(&realm.par, reader.bool("par", &problems))
        reader.update(&realm.deviceCodeLifetimeSeconds, reader.int("deviceCodeLifetimeSeconds", &problems, min: 1))
        reader.update(&realm.deviceCodeIntervalSeconds, reader.int("deviceCodeIntervalSeconds", &problems, min: 1))
        if let delays = reader.array("backchannelRetrySeconds", &problems) {
            let seconds = delays.compactMap(\.doubleValue).filter { $0 >= 0 }
            if seconds.count == delays.count { backchannelRetrySeconds = seconds }
            else { problems.add("backchannelRetrySeconds must be a list of non-negative numbers") }
        }
        reader.update(&tokens.accessTokenLifetimeSeconds, reader.int("accessTokenLifetimeSeconds", &problems, min: 1))
        reader.update(&tokens.refreshReuseLeewaySeconds, reader.int("refreshReuseLeewaySeconds", &problems))
        reader.update(&responses.pascalCase429, reader.bool("pascalCase429", &problems))
        reader.update(&responses.rateLimitHeaders, reader.bool("rateLimitHeaders", &problems))
        reader.update(&responses.olderServerMfa, reader.bool("olderServerMfa", &problems))
        if let mode: RateLimitMode = reader.choice("rateLimitMode", &problems) { rateLimits.mode = mode }
        if let ms = reader.int("jitterMs", &problems) {
            jitter = JitterSettings(minMs: ms, maxMs: ms, invalidGrantMinMs: ms, invalidGrantMaxMs: ms)
        }
    }

    private mutating func applyClients(_ items: [JSON], _ problems: inout ConfigProblems) {
        for (index, item) in items.enumerated() {
            guard case .object = item else {
                problems.add("clients[\(index)] must be an object")
                continue
            }
            let reader = ConfigReader(item, path: "clients[\(index)]")
            guard let id = reader.string("id", &problems), !id.isEmpty else {
                problems.add("clients[\(index)].id is required")
                continue
            }
            let position = clients.firstIndex { $0.id == id }
            if reader.bool("remove", &problems) == true {
                if let position { clients.remove(at: position) }
                continue
            }
            var client = position.map { clients[$0] } ?? ClientRegistration(id: id, grants: [])
            client.apply(reader, &problems)
            if let position { clients[position] = client } else { clients.append(client) }
        }
    }

    private mutating func applyUsers(_ items: [JSON], _ problems: inout ConfigProblems) {
        for (index, item) in items.enumerated() {
            let reader = ConfigReader(item, path: "users[\(index)]")
            guard let email = reader.string("email", &problems), email.contains("@") else {
                problems.add("users[\(index)].email is required")
                continue
            }
            var seed = UserSeed(email: email)
            seed.id = reader.string("id", &problems)
            seed.firstName = reader.string("firstName", &problems)
            seed.lastName = reader.string("lastName", &problems)
            seed.totpSecret = reader.string("totpSecret", &problems)
            if let secret = seed.totpSecret, Base32.decode(secret) == nil { problems.add("users[\(index)].totpSecret must be base32") }
            reader.update(&seed.emailConfirmed, reader.bool("emailConfirmed", &problems))
            reader.update(&seed.hasPassword, reader.bool("hasPassword", &problems))
            seed.password = reader.string("password", &problems)
            if let position = users.firstIndex(where: { $0.email.lowercased() == email.lowercased() }) {
                users[position] = seed
            } else {
                users.append(seed)
            }
        }
    }

    /// `host:port` or `[v6]:port`.
    static func parseListen(_ text: String) -> SocketAddress? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host == "localhost" { host = "127.0.0.1" }
        guard let ip = IPAddress(host) else { return nil }
        return SocketAddress(ip: ip, port: port)
    }

    /// An http(s) URL without a trailing slash, or nil.
    static func normalizePublicURL(_ text: String) -> String? {
        guard text.hasPrefix("http://") || text.hasPrefix("https://"), !text.contains("?"), !text.contains("#") else { return nil }
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        return url.count > "https://".count ? url : nil
    }
}

extension RealmSettings {
    mutating func apply(_ reader: ConfigReader, _ problems: inout ConfigProblems) {
        reader.update(&nativeGrants, reader.bool("nativeGrants", &problems))
        if let posture: SelfRegistrationPosture = reader.choice("selfRegistration", &problems) { selfRegistration = posture }
        if let fields = reader.object("registrationFields", &problems) {
            if let value: FieldRequirement = fields.choice("username", &problems) { registrationFields.username = value }
            if let value: FieldRequirement = fields.choice("firstname", &problems) { registrationFields.firstname = value }
            if let value: FieldRequirement = fields.choice("lastname", &problems) { registrationFields.lastname = value }
        }
        if let section = reader.object("signIn", &problems) {
            section.update(&signIn.password, section.bool("password", &problems))
            section.update(&signIn.emailCode, section.bool("emailCode", &problems))
            section.update(&signIn.passkey, section.bool("passkey", &problems))
            section.update(&signIn.totp, section.bool("totp", &problems))
            if let level = section.string("minimumLevel", &problems) {
                if ["single", "multi"].contains(level.lowercased()) { signIn.minimumLevel = level.lowercased() }
                else { problems.add("\(section.name("minimumLevel")) must be single or multi") }
            }
            if let mode = section.string("ownFactorNotOffered", &problems) {
                if ["Ignore", "RequireViaBrowser"].contains(mode) { signIn.ownFactorNotOffered = mode }
                else { problems.add("\(section.name("ownFactorNotOffered")) must be Ignore or RequireViaBrowser") }
            }
        }
        if let section = reader.object("branding", &problems) {
            for (key, path) in [("productName", \Branding.productName), ("logoUrl", \.logoUrl),
                                ("faviconUrl", \.faviconUrl), ("primaryColor", \.primaryColor)] where section.has(key) {
                branding[keyPath: path] = section.string(key, &problems)
            }
        }
        if let section = reader.object("legal", &problems) {
            for (key, path) in [("termsUrl", \Legal.termsUrl), ("privacyUrl", \.privacyUrl), ("imprintUrl", \.imprintUrl)]
            where section.has(key) {
                legal[keyPath: path] = section.string(key, &problems)
            }
        }
        reader.update(&magicLinkSelfService, reader.bool("magicLinkSelfService", &problems))
        reader.update(&twoFactorGracePeriodDays, reader.int("twoFactorGracePeriodDays", &problems))
        reader.update(&recentSignInRequired, reader.bool("recentSignInRequired", &problems))
        reader.update(&recentSignInRequired, reader.bool("recentSignIn", &problems))
        reader.update(&recentSignInMaxAgeSeconds, reader.int("recentSignInMaxAgeSeconds", &problems, min: 1))
        reader.update(&appName, reader.string("appName", &problems))
        reader.update(&par, reader.bool("par", &problems))
        reader.update(&deviceCodeLifetimeSeconds, reader.int("deviceCodeLifetimeSeconds", &problems, min: 1))
        reader.update(&deviceCodeIntervalSeconds, reader.int("deviceCodeIntervalSeconds", &problems, min: 1))
        // `GET /dev/config` shows only whether there is one (`true`/`false`);
        // `true` keeps the current password, `false` or null removes it.
        if let value = reader.value("defaultPassword") {
            if value.isNull || value.boolValue == false { defaultPassword = nil }
            else if value.boolValue != true { defaultPassword = reader.string("defaultPassword", &problems) }
        }
    }
}

extension TokenSettings {
    mutating func apply(_ reader: ConfigReader, _ problems: inout ConfigProblems) {
        let fields: [(String, WritableKeyPath<TokenSettings, Int>, Int)] = [
            ("accessTokenLifetimeSeconds", \.accessTokenLifetimeSeconds, 1),
            ("refreshTokenLifetimeSeconds", \.refreshTokenLifetimeSeconds, 1),
            ("refreshReuseLeewaySeconds", \.refreshReuseLeewaySeconds, 0),
            ("idTokenLifetimeSeconds", \.idTokenLifetimeSeconds, 1),
            ("codeLifetimeSeconds", \.codeLifetimeSeconds, 1),
            ("codeAttempts", \.codeAttempts, 1),
            ("magicLinkLifetimeSeconds", \.magicLinkLifetimeSeconds, 1),
            ("mfaTokenLifetimeSeconds", \.mfaTokenLifetimeSeconds, 1),
            ("mfaTokenAttempts", \.mfaTokenAttempts, 1),
            ("ceremonyLifetimeSeconds", \.ceremonyLifetimeSeconds, 1),
            ("authorizationCodeLifetimeSeconds", \.authorizationCodeLifetimeSeconds, 1),
        ]
        for (key, path, minimum) in fields {
            reader.update(&self[keyPath: path], reader.int(key, &problems, min: minimum))
        }
    }
}

extension JitterSettings {
    mutating func apply(_ reader: ConfigReader, _ problems: inout ConfigProblems) {
        reader.update(&minMs, reader.int("minMs", &problems))
        reader.update(&maxMs, reader.int("maxMs", &problems))
        reader.update(&invalidGrantMinMs, reader.int("invalidGrantMinMs", &problems))
        reader.update(&invalidGrantMaxMs, reader.int("invalidGrantMaxMs", &problems))
        if maxMs < minMs { problems.add("\(reader.name("maxMs")) must be ≥ minMs") }
        if invalidGrantMaxMs < invalidGrantMinMs { problems.add("\(reader.name("invalidGrantMaxMs")) must be ≥ invalidGrantMinMs") }
    }
}

extension ResponseSwitches {
    mutating func apply(_ reader: ConfigReader, _ problems: inout ConfigProblems) {
        reader.update(&pascalCase429, reader.bool("pascalCase429", &problems))
        reader.update(&rateLimitHeaders, reader.bool("rateLimitHeaders", &problems))
        reader.update(&olderServerMfa, reader.bool("olderServerMfa", &problems))
    }
}
