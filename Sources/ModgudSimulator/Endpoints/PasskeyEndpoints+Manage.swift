import Core
import HTTP

/// `GET /connect/passkey`, `DELETE /connect/passkey/{id}`, and the
/// recent-sign-in rule for passkey changes.
extension SimulatorCore {
    func listPasskeys(_ exchange: inout Exchange, config: SimulatorConfig) -> HTTPResponse {
        guard let token = bearer(&exchange), let userId = token.userId else { return Reply.invalidToken() }
        guard config.realm.nativeGrants else { return Self.nativeGrantsDisabled() }
        let passkeys = state.identity.withLock { store in
            store.passkeys.values.filter { $0.userId == userId }.sorted { $0.createdAt < $1.createdAt }
        }
        let list = passkeys.map { passkey -> JSON in
            var object: JSONObject = ["Id": .string(passkey.id), "DisplayName": .string(passkey.displayName),
                                      "CreatedAt": .string(ISODate.format(passkey.createdAt))]
            if let used = passkey.lastUsedAt { object["LastUsedAt"] = .string(ISODate.format(used)) }
            return .object(object)
        }
        return Reply.json(.ok, .array(list))
    }

    /// 204; 404 for an unknown id or another user's (never 403).
    func deletePasskey(_ exchange: inout Exchange, id: String, config: SimulatorConfig) -> HTTPResponse {
        guard let token = bearer(&exchange), let userId = token.userId else { return Reply.invalidToken() }
        guard config.realm.nativeGrants else { return Self.nativeGrantsDisabled() }
        if let refusal = recentSignInRefusal(token, config: config) { return refusal }
        let user: UserRecord? = state.identity.withLock { store in
            guard let passkey = store.passkeys[id], passkey.userId == userId else { return nil }
            store.passkeys[id] = nil
            return store.users[userId]
        }
        guard let user else {
            return Reply.problem(.notFound, title: "Passkey.NotFound", detail: "No such passkey.")
        }
        state.stats.count("passkeys", "deleted")
        accountChangeNotice(to: user, what: "A passkey was removed from your account.", config: config)
        return Reply.empty(.noContent)
    }

    /// RFC 9470 step-up when "passkey changes require a recent sign-in" is
    /// on and the token's sign-in is older than max_age. Off: only logged.
    func recentSignInRefusal(_ token: AccessTokenRecord, config: SimulatorConfig) -> HTTPResponse? {
        let maxAge = config.realm.recentSignInMaxAgeSeconds
        guard let proof = token.proof, state.now() - proof.authTime > Double(maxAge) else { return nil }
        guard config.realm.recentSignInRequired else {
            state.logger.warning("passkey.recent_sign_in_would_refuse", ["maxAge": .int(maxAge)])
            return nil
        }
        state.stats.count("passkeys", "stepUpRequired")
        let description = "A more recent sign-in is required to change this account's passkeys."
        var headers = HTTPHeaders()
        headers.set("WWW-Authenticate",
                    #"Bearer error="insufficient_user_authentication", error_description="\#(description)", max_age="\#(maxAge)""#)
        return Reply.json(.unauthorized, ["error": "insufficient_user_authentication",
                                          "error_description": .string(description), "max_age": .int(Int64(maxAge))],
                          headers: headers)
    }

    /// The "a change to your account" mail.
    func accountChangeNotice(to user: UserRecord, what: String, config: SimulatorConfig) {
        state.deliver(MailMessage(seq: 0, to: user.email, kind: "account-change", subject: what, code: nil, link: nil,
                                  userId: user.id, token: nil, sentAt: state.now()), logMail: config.logMail)
    }
}
