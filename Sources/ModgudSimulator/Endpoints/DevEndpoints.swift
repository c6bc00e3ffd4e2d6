import Core
import HTTP

/// The `/dev/*` endpoints (off with `--no-dev`; routed in
/// SimulatorRoutes.swift): mailbox, request log, statistics, users, TOTP
/// codes, configuration, faults, clock, reset.
extension SimulatorCore {
    func reset(_ exchange: inout Exchange) async -> HTTPResponse {
        let keep = (await exchange.json())?.value(forKeyIgnoringCase: "keepConfig")?.boolValue ?? false
        state.reset(keepConfig: keep)
        state.logger.info("dev.reset", ["keepConfig": .bool(keep)])
        return Reply.json(.ok, ["reset": true, "keepConfig": .bool(keep)])
    }

    func advanceClock(_ exchange: inout Exchange) async -> HTTPResponse {
        let seconds = (await exchange.json())?.value(forKeyIgnoringCase: "advanceSeconds")?.doubleValue ?? 0
        state.clock.advance(by: seconds)
        return clockAnswer()
    }

    func mailboxEndpoint(_ exchange: Exchange) -> HTTPResponse {
        let limit = exchange.queryValue("limit").flatMap(Int.init) ?? 100
        let messages = state.mailbox.messages(to: exchange.queryValue("email"), limit: limit)
        return Reply.json(.ok, .array(messages.map(\.json)))
    }

    func requestsEndpoint(_ exchange: Exchange) -> HTTPResponse {
        let since = exchange.queryValue("since").flatMap(Int.init) ?? 0
        let limit = exchange.queryValue("limit").flatMap(Int.init) ?? 1000
        let (total, records) = state.recorder.records(since: since, limit: limit, path: exchange.queryValue("path"))
        return Reply.json(.ok, ["total": .int(Int64(total)), "requests": .array(records.map(\.json))])
    }

    func statsEndpoint() -> HTTPResponse {
        var body = state.stats.json
        body["rateLimits"] = state.limiter.json
        let counts = state.identity.withLock { store -> JSON in
            [
                "users": .int(Int64(store.users.count)), "pendingRegistrations": .int(Int64(store.pending.count)),
                "accessTokens": .int(Int64(store.accessTokens.count)), "refreshTokens": .int(Int64(store.refreshTokens.count)),
                "families": .int(Int64(store.families.count)),
                "revokedFamilies": .int(Int64(store.families.values.filter(\.revoked).count)),
                "passkeys": .int(Int64(store.passkeys.count)),
            ]
        }
        body["store"] = counts
        body["clockOffsetSeconds"] = .double(state.clock.offsetSeconds)
        return Reply.json(.ok, .object(body))
    }

    func userEndpoint(_ email: String?) -> HTTPResponse {
        guard let email else {
            let users = state.identity.withLock { $0.users.values.sorted { $0.createdAt < $1.createdAt } }
            return Reply.json(.ok, .array(users.map { userJSON($0, passkeys: nil) }))
        }
        let found = state.identity.withLock { store -> (UserRecord, Int)? in
            guard let user = store.user(email: email) else { return nil }
            return (user, store.passkeys.values.filter { $0.userId == user.id }.count)
        }
        guard let (user, passkeys) = found else { return Reply.json(.notFound, ["error": "no_such_user"]) }
        return Reply.json(.ok, userJSON(user, passkeys: passkeys))
    }

    func userJSON(_ user: UserRecord, passkeys: Int?) -> JSON {
        var object: JSONObject = ["id": .string(user.id), "email": .string(user.email),
                                  "emailConfirmed": .bool(user.emailConfirmed), "totp": .bool(user.totpSecret != nil),
                                  "password": .bool(user.password != nil), "disabled": .bool(user.disabled)]
        if let name = user.firstName { object["firstName"] = .string(name) }
        if let name = user.lastName { object["lastName"] = .string(name) }
        if let secret = user.totpSecret { object["totpSecret"] = .string(Base32.encode(secret)) }
        if let passkeys { object["passkeys"] = .int(Int64(passkeys)) }
        return .object(object)
    }

    /// Creates or updates a user: `{"email","firstName"?,"lastName"?,
    /// "totpSecret"?|"generateTotp"?,"emailConfirmed"?,"password"?,"rotateSecurityStamp"?}`.
    func createUser(_ exchange: inout Exchange) async -> HTTPResponse {
        guard let body = await exchange.json(), let email = body.value(forKeyIgnoringCase: "email")?.stringValue,
              email.contains("@")
        else { return Reply.json(.badRequest, ["error": "invalid_request", "error_description": "email is required."]) }
        func text(_ key: String) -> String? { body.value(forKeyIgnoringCase: key)?.stringValue }
        var secret = text("totpSecret")
        if let secret, Base32.decode(secret) == nil {
            return Reply.json(.badRequest, ["error": "invalid_request", "error_description": "totpSecret must be base32."])
        }
        if body.value(forKeyIgnoringCase: "generateTotp")?.boolValue == true { secret = Base32.encode(Identifiers.randomBytes(20)) }
        let now = state.now()
        let (user, created) = state.identity.withLock { store -> (UserRecord, Bool) in
            let existing = store.user(email: email)
            var seed = UserSeed(id: text("id"), email: email, firstName: text("firstName") ?? existing?.firstName,
                                lastName: text("lastName") ?? existing?.lastName,
                                totpSecret: secret ?? existing?.totpSecret.map(Base32.encode))
            if body.value(forKeyIgnoringCase: "removeTotp")?.boolValue == true { seed.totpSecret = nil }
            seed.emailConfirmed = body.value(forKeyIgnoringCase: "emailConfirmed")?.boolValue ?? existing?.emailConfirmed ?? true
            seed.hasPassword = body.value(forKeyIgnoringCase: "hasPassword")?.boolValue ?? existing?.hasPassword ?? false
            seed.password = text("password") ?? existing?.password
            var user = store.upsert(seed, now: now)
            if body.value(forKeyIgnoringCase: "rotateSecurityStamp")?.boolValue == true {
                user.securityStamp = Identifiers.token()
                store.users[user.id] = user
            }
            return (user, existing == nil)
        }
        return Reply.json(created ? .created : .ok, userJSON(user, passkeys: nil))
    }

    func totpEndpoint(_ email: String?) -> HTTPResponse {
        guard let email, let secret = state.identity.withLock({ $0.user(email: email)?.totpSecret }) else {
            return Reply.json(.notFound, ["error": "no_totp", "error_description": "No such user, or the user has no TOTP."])
        }
        let now = state.now()
        let remaining = TOTP.period - now.truncatingRemainder(dividingBy: TOTP.period)
        return Reply.json(.ok, ["code": .string(TOTP.code(secret: secret, time: now)), "period": .int(Int64(TOTP.period)),
                                "secondsRemaining": .int(Int64(remaining.rounded(.up)))])
    }

    func clockAnswer() -> HTTPResponse {
        Reply.json(.ok, ["now": .string(ISODate.format(state.now())), "offsetSeconds": .double(state.clock.offsetSeconds)])
    }

    func devIndex() -> HTTPResponse {
        Reply.json(.ok, ["endpoints": [
            "GET /dev/mailbox?email=&limit=", "GET /dev/requests?since=&limit=&path=", "POST /dev/reset",
            "GET /dev/stats", "GET /dev/users?email=", "POST /dev/users", "GET /dev/totp?email=",
            "GET /dev/config", "POST /dev/config", "GET /dev/faults", "POST /dev/faults", "GET /dev/clock", "POST /dev/clock",
            "POST /dev/users/signout", "POST /dev/users/disable", "GET /dev/keys", "POST /dev/keys/rotate",
            "POST /dev/keys/publish", "GET /dev/backchannel", "POST /dev/device",
        ], "docs": "Docs/simulator.md"])
    }
}
