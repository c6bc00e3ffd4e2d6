import Core

extension SimulatorConfig {
    /// The configuration in the config file's shape (client secrets left
    /// out), for `GET /dev/config` and `--print-config`.
    public var json: JSON {
        var object: JSONObject = [
            "listen": .string(listen.description),
            "publicUrl": publicURL.map { .string($0) } ?? .null,
            "magicLinkPage": magicLinkPage.map { .string($0) } ?? .null,
            "loops": .int(Int64(loops)),
            "dev": .bool(devEndpoints),
            "logLevel": .string(logLevel),
            "logMail": .bool(logMail),
            "requestLogCapacity": .int(Int64(requestLogCapacity)),
        ]
        object["realm"] = realm.json
        object["tokens"] = tokens.json
        object["jitter"] = [
            "minMs": .int(Int64(jitter.minMs)), "maxMs": .int(Int64(jitter.maxMs)),
            "invalidGrantMinMs": .int(Int64(jitter.invalidGrantMinMs)),
            "invalidGrantMaxMs": .int(Int64(jitter.invalidGrantMaxMs)),
        ]
        object["responses"] = [
            "pascalCase429": .bool(responses.pascalCase429),
            "rateLimitHeaders": .bool(responses.rateLimitHeaders),
            "olderServerMfa": .bool(responses.olderServerMfa),
        ]
        object["rateLimits"] = rateLimits.json
        object["clients"] = .array(clients.map(\.json))
        object["backchannelRetrySeconds"] = .array(backchannelRetrySeconds.map { .double($0) })
        object["users"] = .array(users.map { seed in
            var user: JSONObject = ["email": .string(seed.email)]
            if let id = seed.id { user["id"] = .string(id) }
            if let name = seed.firstName { user["firstName"] = .string(name) }
            if let name = seed.lastName { user["lastName"] = .string(name) }
            user["totp"] = .bool(seed.totpSecret != nil)
            return .object(user)
        })
        return .object(object)
    }
}

extension RealmSettings {
    var json: JSON {
        func optional(_ text: String?) -> JSON { text.map { .string($0) } ?? .null }
        return [
            "nativeGrants": .bool(nativeGrants),
            "selfRegistration": .string(selfRegistration.rawValue),
            "registrationFields": [
                "username": .string(registrationFields.username.rawValue),
                "firstname": .string(registrationFields.firstname.rawValue),
                "lastname": .string(registrationFields.lastname.rawValue),
            ],
            "signIn": [
                "password": .bool(signIn.password), "emailCode": .bool(signIn.emailCode),
                "passkey": .bool(signIn.passkey), "minimumLevel": .string(signIn.minimumLevel),
                "totp": .bool(signIn.totp), "ownFactorNotOffered": .string(signIn.ownFactorNotOffered),
            ],
            "branding": [
                "productName": optional(branding.productName), "logoUrl": optional(branding.logoUrl),
                "faviconUrl": optional(branding.faviconUrl), "primaryColor": optional(branding.primaryColor),
            ],
            "legal": [
                "termsUrl": optional(legal.termsUrl), "privacyUrl": optional(legal.privacyUrl),
                "imprintUrl": optional(legal.imprintUrl),
            ],
            "magicLinkSelfService": .bool(magicLinkSelfService),
            "twoFactorGracePeriodDays": .int(Int64(twoFactorGracePeriodDays)),
            "recentSignInRequired": .bool(recentSignInRequired),
            "recentSignInMaxAgeSeconds": .int(Int64(recentSignInMaxAgeSeconds)),
            "appName": .string(appName),
            "par": .bool(par),
            "deviceCodeLifetimeSeconds": .int(Int64(deviceCodeLifetimeSeconds)),
            "deviceCodeIntervalSeconds": .int(Int64(deviceCodeIntervalSeconds)),
            "defaultPassword": .bool(defaultPassword != nil),
        ]
    }
}

extension TokenSettings {
    var json: JSON {
        [
            "accessTokenLifetimeSeconds": .int(Int64(accessTokenLifetimeSeconds)),
            "refreshTokenLifetimeSeconds": .int(Int64(refreshTokenLifetimeSeconds)),
            "refreshReuseLeewaySeconds": .int(Int64(refreshReuseLeewaySeconds)),
            "idTokenLifetimeSeconds": .int(Int64(idTokenLifetimeSeconds)),
            "codeLifetimeSeconds": .int(Int64(codeLifetimeSeconds)),
            "codeAttempts": .int(Int64(codeAttempts)),
            "magicLinkLifetimeSeconds": .int(Int64(magicLinkLifetimeSeconds)),
            "mfaTokenLifetimeSeconds": .int(Int64(mfaTokenLifetimeSeconds)),
            "mfaTokenAttempts": .int(Int64(mfaTokenAttempts)),
            "ceremonyLifetimeSeconds": .int(Int64(ceremonyLifetimeSeconds)),
            "authorizationCodeLifetimeSeconds": .int(Int64(authorizationCodeLifetimeSeconds)),
        ]
    }
}
