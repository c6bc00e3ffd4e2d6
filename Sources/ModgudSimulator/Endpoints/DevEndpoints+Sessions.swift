import Core
import Crypto
import HTTP

/// `/dev/users/signout`, `/dev/users/disable` and `/dev/keys/rotate`:
/// what an administrator or a key rotation does to a running Modgud.
extension SimulatorCore {
    /// `{"email"}`: ends every session of the user (all tokens, the
    /// browser sign-ins) and sends the back-channel logout tokens.
    func signOutUser(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        guard let email = await requestedEmail(&exchange) else { return Self.noSuchUser }
        guard let ended = state.identity.withLock({ store -> [EndedSession]? in
            guard let user = store.user(email: email) else { return nil }
            return store.endSessions(userId: user.id)
        }) else { return Self.noSuchUser }
        notifyLogout(ended, config: config)
        state.logger.info("dev.user_signed_out", ["sessions": .int(ended.count)])
        return Reply.json(.ok, ["sessionsEnded": .int(Int64(ended.count))])
    }

    /// `{"email","disabled"?}`: disables the user (default) — every sign-in
    /// refused, every token revoked, back-channel logout sent — or, with
    /// `"disabled": false`, enables the user again.
    func disableUser(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        let body = await exchange.json()
        guard let email = body?.value(forKeyIgnoringCase: "email")?.stringValue else { return Self.noSuchUser }
        let disable = body?.value(forKeyIgnoringCase: "disabled")?.boolValue ?? true
        guard let ended = state.identity.withLock({ store -> [EndedSession]? in
            guard let user = store.user(email: email) else { return nil }
            store.users[user.id]!.disabled = disable
            guard disable else { return [] }
            store.users[user.id]!.securityStamp = Identifiers.token()
            return store.endSessions(userId: user.id)
        }) else { return Self.noSuchUser }
        notifyLogout(ended, config: config)
        return Reply.json(.ok, ["disabled": .bool(disable), "sessionsEnded": .int(Int64(ended.count))])
    }

    /// `{"publish"?: true}`: a new current key; the current one stays
    /// published as the previous. `"publish": false` signs with the new key
    /// before the key set lists it (until `POST /dev/keys/publish`).
    func rotateKeys(_ exchange: inout Exchange) async -> HTTPResponse {
        let publish = (await exchange.json())?.value(forKeyIgnoringCase: "publish")?.boolValue ?? true
        guard let key = try? RSAPrivateKey(bits: 2048) else {
            return Reply.json(.internalServerError, ["error": "key_generation_failed"])
        }
        state.signingKey.rotate(to: key, publish: publish)
        state.logger.info("dev.keys_rotated", ["published": .bool(publish)])
        return Reply.json(.ok, state.signingKey.json)
    }

    private func requestedEmail(_ exchange: inout Exchange) async -> String? {
        (await exchange.json())?.value(forKeyIgnoringCase: "email")?.stringValue
    }

    static var noSuchUser: HTTPResponse {
        Reply.json(.notFound, ["error": "no_such_user", "error_description": "No user with that e-mail address."])
    }
}
