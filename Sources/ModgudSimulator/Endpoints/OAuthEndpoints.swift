import Core
import HTTP

/// `/connect/userinfo`, `/connect/revoke`, `/connect/introspect`.
extension SimulatorCore {
    /// The live access token of `Authorization: Bearer …`, or nil.
    func bearer(_ exchange: inout Exchange) -> AccessTokenRecord? {
        guard let header = exchange.header("Authorization"), header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = header.dropFirst("bearer ".count).trimmingSpaces
        let now = state.now()
        let record = state.identity.withLock { $0.validAccessToken(token, now: now) }
        if let record {
            exchange.record.clientId = record.clientId
            exchange.record.clientAuth = "bearer"
        }
        return record
    }

    func userinfo(_ exchange: inout Exchange) -> HTTPResponse {
        guard let token = bearer(&exchange), let userId = token.userId,
              let user = state.identity.withLock({ $0.users[userId] })
        else { return Reply.invalidToken() }
        guard token.scopes.contains("openid") else {
            var headers = HTTPHeaders()
            headers.set("WWW-Authenticate", #"Bearer error="insufficient_scope", scope="openid""#)
            return Reply.oauth("insufficient_scope", "The 'openid' scope is required for the userinfo endpoint.",
                               status: .forbidden, headers: headers)
        }
        return Reply.json(.ok, .object(Self.userClaims(user, scopes: token.scopes)), noStore: true)
    }

    /// Authenticates the caller of revoke and introspect (Basic or post;
    /// public clients by `client_id` for revocation only).
    private func revocationClient(_ exchange: inout Exchange, form: [(name: String, value: String)], config: SimulatorConfig,
                                  allowPublic: Bool) -> Result<ClientRegistration, HTTPErrorReply> {
        switch CallerContext.authenticate(exchange.request.headers, form: form, config: config) {
        case .failed(let description, let basic):
            return .failure(HTTPErrorReply(Reply.invalidClient(description, basicAttempted: basic)))
        case .anonymous:
            return .failure(HTTPErrorReply(Reply.invalidClient("Client authentication is required.", basicAttempted: false)))
        case .authenticated(let client, let method):
            exchange.record.clientId = client.id
            exchange.record.clientAuth = method.rawValue
            guard allowPublic || method != .publicClient else {
                return .failure(HTTPErrorReply(Reply.invalidClient("Client authentication is required.", basicAttempted: false)))
            }
            return .success(client)
        }
    }

    /// RFC 7009: 200 for every token (known or not); a refresh token takes
    /// its whole family with it.
    func revoke(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        guard let form = await exchange.form() else {
            return Reply.oauth("invalid_request", "The revocation request must be form-encoded.")
        }
        let client: ClientRegistration
        switch revocationClient(&exchange, form: form, config: config, allowPublic: true) {
        case .success(let authenticated): client = authenticated
        case .failure(let refusal): return refusal.response
        }
        guard let token = form.first("token"), !token.isEmpty else {
            return Reply.oauth("invalid_request", "The mandatory 'token' parameter is missing.")
        }
        let kind = state.identity.withLock { $0.revoke(token, clientId: client.id) }
        state.stats.count("revocations", kind ?? "unknown")
        if kind == "refresh" { state.stats.count("refresh", "familyRevocations") }
        return Reply.empty(.ok, headers: ["Cache-Control": "no-store"])
    }

    /// RFC 7662 for the simulator's tokens; `{"active":false}` for anything
    /// unknown, expired or revoked.
    func introspect(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        guard let form = await exchange.form() else {
            return Reply.oauth("invalid_request", "The introspection request must be form-encoded.")
        }
        switch revocationClient(&exchange, form: form, config: config, allowPublic: false) {
        case .success: break
        case .failure(let refusal): return refusal.response
        }
        let token = form.first("token") ?? ""
        let now = state.now()
        let (access, refresh) = state.identity.withLock { store -> (AccessTokenRecord?, (RefreshTokenRecord, TokenFamily)?) in
            if let record = store.validAccessToken(token, now: now) { return (record, nil) }
            if let record = store.refreshTokens[token], record.redeemedAt == nil, record.expiresAt > now,
               let family = store.families[record.familyId], !family.revoked {
                return (nil, (record, family))
            }
            return (nil, nil)
        }
        state.stats.count("introspections", access != nil || refresh != nil ? "active" : "inactive")
        var body: JSONObject = ["active": false]
        if let access {
            body = ["active": true, "token_type": "Bearer", "client_id": .string(access.clientId),
                    "sub": .string(access.userId ?? access.clientId), "scope": .string(access.scopes.joined(separator: " ")),
                    "iss": .string(state.issuer), "iat": .int(Int64(access.issuedAt)), "exp": .int(Int64(access.expiresAt))]
            if !access.resources.isEmpty { body["aud"] = .array(access.resources.map { .string($0) }) }
            if let proof = access.proof {
                body["auth_time"] = .int(Int64(proof.authTime))
                body["acr"] = .string(proof.acr)
            }
        } else if let (record, family) = refresh {
            body = ["active": true, "token_type": "refresh_token", "client_id": .string(family.clientId),
                    "sub": .string(family.userId ?? family.clientId), "scope": .string(family.scopes.joined(separator: " ")),
                    "iss": .string(state.issuer), "iat": .int(Int64(record.issuedAt)), "exp": .int(Int64(record.expiresAt))]
        }
        return Reply.json(.ok, .object(body), noStore: true)
    }
}
