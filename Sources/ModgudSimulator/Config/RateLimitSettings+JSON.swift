import Core

extension RateLimitSettings {
    /// `{"mode","allowlist":[…],"policies":{"native-otp":{"source":{"limit","windowSeconds","burst"?}|null,…}}}`.
    /// A dimension set to `null` is switched off; a policy set to `null`
    /// drops every ceiling of that policy.
    mutating func apply(_ reader: ConfigReader, _ problems: inout ConfigProblems) {
        if let mode: RateLimitMode = reader.choice("mode", &problems) { self.mode = mode }
        if let entries = reader.strings("allowlist", &problems) {
            var blocks: [CIDR] = []
            for entry in entries {
                if let block = CIDR(entry) { blocks.append(block) } else { problems.add("\(reader.name("allowlist")) has a bad entry") }
            }
            allowlist = blocks
        }
        guard let policiesValue = reader.value("policies"), !policiesValue.isNull else { return }
        guard let members = policiesValue.objectValue else {
            problems.add("\(reader.name("policies")) must be an object")
            return
        }
        for (name, value) in members {
            let path = "\(reader.name("policies")).\(name)"
            if value.isNull {
                policies[name] = RateLimitPolicy([:])
                continue
            }
            guard case .object = value else {
                problems.add("\(path) must be an object")
                continue
            }
            let section = ConfigReader(value, path: path)
            var policy = policies[name] ?? RateLimitPolicy([:])
            for dimension in RateLimitDimension.allCases where section.has(dimension.rawValue) {
                policy.rules[dimension] = Self.rule(section, dimension.rawValue, &problems)
            }
            if section.has("sourceRegistration") {
                policy.sourceRegistration = Self.rule(section, "sourceRegistration", &problems)
            }
            policies[name] = policy
        }
    }

    private static func rule(_ section: ConfigReader, _ key: String, _ problems: inout ConfigProblems) -> RateLimitRule? {
        guard let rule = section.object(key, &problems) else { return nil }
        guard let limit = rule.int("limit", &problems, min: 1), let window = rule.double("windowSeconds", &problems) else {
            problems.add("\(section.name(key)) needs limit ≥ 1 and windowSeconds > 0")
            return nil
        }
        guard window > 0 else {
            problems.add("\(section.name(key)).windowSeconds must be > 0")
            return nil
        }
        return RateLimitRule(limit: limit, windowSeconds: window, burst: rule.int("burst", &problems, min: 1))
    }

    /// The settings as the config file writes them.
    var json: JSON {
        var policyObject = JSONObject()
        for name in policies.keys.sorted() {
            let policy = policies[name]!
            var object = JSONObject()
            for dimension in RateLimitDimension.allCases {
                object[dimension.rawValue] = policy.rules[dimension].map(Self.ruleJSON) ?? .null
            }
            if let rule = policy.sourceRegistration { object["sourceRegistration"] = Self.ruleJSON(rule) }
            policyObject[name] = .object(object)
        }
        return [
            "mode": .string(mode.rawValue),
            "allowlist": .array(allowlist.map { .string($0.description) }),
            "policies": .object(policyObject),
        ]
    }

    private static func ruleJSON(_ rule: RateLimitRule) -> JSON {
        var object: JSONObject = ["limit": .int(Int64(rule.limit)), "windowSeconds": .double(rule.windowSeconds)]
        if let burst = rule.burst { object["burst"] = .int(Int64(burst)) }
        return .object(object)
    }
}

extension ClientRegistration {
    /// Reads the fields present; `"secret": null` makes the client public.
    mutating func apply(_ reader: ConfigReader, _ problems: inout ConfigProblems) {
        if reader.has("secret") { secret = reader.string("secret", &problems) }
        reader.update(&grants, reader.strings("grants", &problems))
        reader.update(&capabilities, reader.strings("capabilities", &problems))
        if reader.has("rpId") { rpId = reader.string("rpId", &problems) }
        reader.update(&origins, reader.strings("origins", &problems))
        reader.update(&redirectUris, reader.strings("redirectUris", &problems))
        reader.update(&postLogoutRedirectUris, reader.strings("postLogoutRedirectUris", &problems))
        if reader.has("resources") { resources = reader.strings("resources", &problems) }
        if reader.has("backchannelLogoutUri") {
            backchannelLogoutUri = reader.isNull("backchannelLogoutUri") ? nil : reader.string("backchannelLogoutUri", &problems)
        }
        reader.update(&backchannelLogoutSessionRequired, reader.bool("backchannelLogoutSessionRequired", &problems))
        if let uri = backchannelLogoutUri, !(uri.hasPrefix("http://") || uri.hasPrefix("https://")) || uri.contains("#") {
            problems.add("\(reader.path).backchannelLogoutUri must be an absolute http(s) URL without a fragment")
        }
        if reader.has("accessTokenLifetimeSeconds") {
            accessTokenLifetimeSeconds = reader.int("accessTokenLifetimeSeconds", &problems, min: 1)
        }
        for grant in grants where !GrantType.all.contains(grant) {
            problems.add("\(reader.path).grants: unknown grant type \(grant)")
        }
        if grants.contains(GrantType.clientCredentials), grants.contains(where: { $0 != GrantType.clientCredentials }) {
            problems.add("\(reader.path): a client cannot hold client_credentials and user-flow grants (strict grant separation)")
        }
        if grants.contains(GrantType.clientCredentials), secret == nil {
            problems.add("\(reader.path): client_credentials needs a confidential client")
        }
        if capabilities.contains(trustedForwarderCapability), secret == nil {
            problems.add("\(reader.path): cap:trusted-forwarder needs a confidential client")
        }
    }

    /// The client as the config file writes it, without its secret.
    var json: JSON {
        var object: JSONObject = [
            "id": .string(id),
            "confidential": .bool(isConfidential),
            "grants": .array(grants.map { .string($0) }),
            "capabilities": .array(capabilities.map { .string($0) }),
            "rpId": rpId.map { .string($0) } ?? .null,
            "origins": .array(origins.map { .string($0) }),
            "redirectUris": .array(redirectUris.map { .string($0) }),
            "postLogoutRedirectUris": .array(postLogoutRedirectUris.map { .string($0) }),
            "resources": resources.map { .array($0.map { .string($0) }) } ?? .null,
        ]
        if let lifetime = accessTokenLifetimeSeconds { object["accessTokenLifetimeSeconds"] = .int(Int64(lifetime)) }
        object["backchannelLogoutUri"] = backchannelLogoutUri.map { .string($0) } ?? .null
        object["backchannelLogoutSessionRequired"] = .bool(backchannelLogoutSessionRequired)
        return .object(object)
    }
}
