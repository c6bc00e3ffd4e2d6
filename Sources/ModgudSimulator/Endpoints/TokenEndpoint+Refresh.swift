import Core
import HTTP

/// `refresh_token` and `client_credentials`.
extension SimulatorCore {
    func refreshGrant(_ request: TokenRequest) -> HTTPResponse {
        let config = request.config
        guard let token = request.form.first("refresh_token"), !token.isEmpty else {
            return Reply.oauth("invalid_request", "The mandatory 'refresh_token' parameter is missing.")
        }
        let scopeText = request.form.first("scope")
        let now = state.now()
        let result = state.identity.withLock { store in
            store.refresh(token, clientId: request.client.id, scopes: scopeText.map { Self.scopes($0) },
                          resources: request.resources, leeway: config.tokens.refreshReuseLeewaySeconds,
                          requiresMulti: config.realm.signIn.requiresMulti, lifetimes: lifetimes(request.client, config),
                          now: now)
            .map { outcome in (outcome, outcome.tokens.userId.flatMap { store.users[$0] }) }
        }
        switch result {
        case .success(let (outcome, user)):
            state.stats.count("refresh", "redemptions")
            if outcome.leewayReplay {
                state.stats.count("refresh", "leewayReplays")
                state.logger.info("refresh.leeway_replay", ["clientId": .string(request.client.id)])
            }
            return tokenResponse(outcome.tokens, user: user, client: request.client, config: config)
        case .failure(let refusal):
            state.stats.count("refresh", "refused")
            if refusal.familyRevoked {
                state.stats.count("refresh", "familyRevocations")
                state.logger.warning("refresh.family_revoked", ["clientId": .string(request.client.id),
                                                                "reason": .string(refusal.description)])
            }
            if refusal.description.contains("already been redeemed") { state.stats.count("refresh", "replaysRejected") }
            return Reply.oauth(refusal.error, refusal.description)
        }
    }

    func clientCredentialsGrant(_ request: TokenRequest) -> HTTPResponse {
        let client = request.client
        let now = state.now()
        let scopes = request.scopes.filter { !["openid", "offline_access", "profile", "email"].contains($0) }
        let issued = state.identity.withLock { store in
            store.startFamily(userId: nil, clientId: client.id, scopes: scopes, resources: request.resources, proof: nil,
                              withRefresh: false, lifetimes: lifetimes(client, request.config), now: now)
        }
        return tokenResponse(issued, user: nil, client: client, config: request.config)
    }
}
