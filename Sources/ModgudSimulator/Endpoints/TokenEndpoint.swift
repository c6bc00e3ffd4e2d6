import Core
import HTTP

/// `POST /connect/token`: client authentication, the forwarder rules, the
/// `oauth-token` limit, the grant gates, then the grant itself.
extension SimulatorCore {
    /// What every grant handler gets.
    struct TokenRequest {
        var form: [(name: String, value: String)]
        var client: ClientRegistration
        var grantType: String
        var scopes: [String]
        var resources: [String]
        var source: CallerSource
        var config: SimulatorConfig
    }

    func token(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        guard let form = await exchange.form() else {
            return Reply.oauth("invalid_request", "The token request must be an application/x-www-form-urlencoded POST.")
        }
        let grantType = form.first("grant_type")
        exchange.record.grantType = grantType
        let client: ClientRegistration, source: CallerSource
        switch admitClient(&exchange, form: form, config: config) {
        case .success(let admitted): (client, source) = (admitted.client, admitted.source)
        case .failure(let refusal): return refusal.response
        }
        guard let grantType, !grantType.isEmpty else {
            return Reply.oauth("invalid_request", "The mandatory 'grant_type' parameter is missing.")
        }
        state.stats.count("grants", grantType)
        if let refusal = grantGate(grantType, client: client, config: config) { return refusal }
        let resources = form.all("resource")
        for resource in resources where !Self.resourceAllowed(resource, client: client) {
            return Reply.oauth("invalid_target", "The specified resource is not allowed for this client application.")
        }
        let request = TokenRequest(form: form, client: client, grantType: grantType, scopes: Self.scopes(form.first("scope")),
                                   resources: resources, source: source, config: config)
        let response: HTTPResponse
        switch grantType {
        case GrantType.otp: response = await otpGrant(request, &exchange)
        case GrantType.magic: response = await magicGrant(request)
        case GrantType.passkey: response = await passkeyGrant(request)
        case GrantType.refreshToken: response = refreshGrant(request)
        case GrantType.clientCredentials: response = clientCredentialsGrant(request)
        case GrantType.deviceCode: response = deviceCodeGrant(request)
        default: response = authorizationCodeGrant(request)
        }
        state.stats.count("grantResults", "\(grantType) \(response.status.code)")
        return response
    }

    /// A client admitted to a token-endpoint style call.
    struct AdmittedClient {
        var client: ClientRegistration
        var source: CallerSource
    }

    /// What `/connect/token` and `/connect/device` check before anything
    /// else: client authentication (`401 invalid_client`; none at all is
    /// refused too), the forwarder rules, then the `oauth-token` limit.
    /// Fills in the request record's client.
    func admitClient(_ exchange: inout Exchange, form: [(name: String, value: String)],
                     config: SimulatorConfig) -> Result<AdmittedClient, HTTPErrorReply> {
        let client: ClientRegistration, method: ClientAuthMethod
        switch CallerContext.authenticate(exchange.request.headers, form: form, config: config) {
        case .failed(let description, let basicAttempted):
            exchange.record.clientId = form.first("client_id")
            return .failure(HTTPErrorReply(Reply.invalidClient(description, basicAttempted: basicAttempted)))
        case .anonymous:
            return .failure(HTTPErrorReply(Reply.invalidClient("The mandatory 'client_id' parameter is missing.",
                                                               basicAttempted: false)))
        case .authenticated(let authenticated, let how):
            client = authenticated
            method = how
        }
        exchange.record.clientId = client.id
        exchange.record.clientAuth = method.rawValue
        let source: CallerSource
        switch CallerContext.source(exchange, basicClient: method == .basic ? client : nil, rateLimited: true, config: config) {
        case .success(let resolved): source = resolved
        case .failure(let refusal): return .failure(refusal)
        }
        let limitKeys = keys(source: source, target: nil, client: client.id, config: config)
        if let refusal = rateLimit(RateLimitPolicyName.oauthToken, keys: limitKeys, &exchange, config: config) {
            return .failure(HTTPErrorReply(refusal))
        }
        return .success(AdmittedClient(client: client, source: source))
    }

    /// `unsupported_grant_type` / `unauthorized_client`, as OpenIddict and
    /// the native-grant gates decide them.
    private func grantGate(_ grantType: String, client: ClientRegistration, config: SimulatorConfig) -> HTTPResponse? {
        guard GrantType.all.contains(grantType) else {
            return Reply.oauth("unsupported_grant_type", "The specified 'grant_type' is not supported.")
        }
        guard client.holds(grantType) else {
            return Reply.oauth("unauthorized_client", "This client application is not allowed to use the specified grant type.")
        }
        guard GrantType.native.contains(grantType) else { return nil }
        guard config.realm.nativeGrants else {
            return Reply.oauth("unsupported_grant_type", "This grant type is not enabled for this realm.")
        }
        if grantType == GrantType.otp, !config.realm.signIn.emailCode {
            return Reply.oauth("unsupported_grant_type", "The e-mail code is not a sign-in method of this application.")
        }
        if grantType == GrantType.passkey, !config.realm.signIn.passkey {
            return Reply.oauth("unsupported_grant_type", "Passkeys are not a sign-in method of this application.")
        }
        return nil
    }

    /// RFC 8707: an absolute URI, and one of the client's audiences when it
    /// has a list.
    static func resourceAllowed(_ resource: String, client: ClientRegistration) -> Bool {
        guard let scheme = resource.firstIndex(of: ":"), scheme != resource.startIndex, !resource.contains("#") else { return false }
        return client.resources.map { $0.contains(resource) } ?? true
    }

    static func scopes(_ text: String?) -> [String] {
        var scopes: [String] = []
        for part in (text ?? "").split(separator: " ") where !scopes.contains(String(part)) { scopes.append(String(part)) }
        return scopes
    }

    /// The uniform, jittered `invalid_grant` for a failed factor.
    func factorFailure(_ description: String, config: SimulatorConfig) async -> HTTPResponse {
        state.stats.count("factors", "failed")
        await jitter(min: config.jitter.invalidGrantMinMs, max: config.jitter.invalidGrantMaxMs)
        return Reply.oauth("invalid_grant", description)
    }

    func lifetimes(_ client: ClientRegistration, _ config: SimulatorConfig) -> TokenLifetimes {
        TokenLifetimes(access: client.accessTokenLifetimeSeconds ?? config.tokens.accessTokenLifetimeSeconds,
                       refresh: config.tokens.refreshTokenLifetimeSeconds)
    }

    /// Starts a family for a signed-in user and answers with its tokens
    /// (`sid`: the browser sign-in's session id; a new one when nil). A
    /// disabled user gets `invalid_grant`.
    func issueUserTokens(userId: String, proof: SignInProof, client: ClientRegistration, scopes: [String],
                         resources: [String], config: SimulatorConfig, nonce: String? = nil, sid: String? = nil,
                         familyNote: ((String) -> Void)? = nil) -> HTTPResponse {
        let withRefresh = scopes.contains("offline_access") && client.holds(GrantType.refreshToken)
        let now = state.now()
        let minted = state.identity.withLock { store -> (IssuedTokens, UserRecord)? in
            guard let user = store.users[userId], !user.disabled else { return nil }
            return (store.startFamily(userId: userId, clientId: client.id, scopes: scopes, resources: resources, proof: proof,
                                      sid: sid, withRefresh: withRefresh, lifetimes: lifetimes(client, config), now: now),
                    user)
        }
        guard let (issued, user) = minted else {
            return Reply.oauth("invalid_grant", "The user account is disabled.")
        }
        familyNote?(issued.familyId)
        return tokenResponse(issued, user: user, client: client, config: config, nonce: nonce)
    }

    /// `{"access_token","token_type","expires_in","scope","refresh_token"?,"id_token"?}`.
    func tokenResponse(_ issued: IssuedTokens, user: UserRecord?, client: ClientRegistration, config: SimulatorConfig,
                       nonce: String? = nil) -> HTTPResponse {
        var body: JSONObject = [
            "access_token": .string(issued.accessToken),
            "token_type": "Bearer",
            "expires_in": .int(Int64(issued.expiresIn)),
            "scope": .string(issued.scopes.joined(separator: " ")),
        ]
        state.stats.count("tokens", "access")
        if let refresh = issued.refreshToken {
            body["refresh_token"] = .string(refresh)
            state.stats.count("tokens", "refresh")
        }
        if let user, let proof = issued.proof, issued.scopes.contains("openid") {
            body["id_token"] = .string(idToken(user: user, proof: proof, sid: issued.sid, scopes: issued.scopes,
                                               client: client, config: config, nonce: nonce))
            state.stats.count("tokens", "id")
        }
        return Reply.json(.ok, .object(body), noStore: true)
    }

    /// An RS256 id_token: iss, sub, aud, exp, iat, auth_time, sid, acr, amr,
    /// and the profile and e-mail claims the scopes allow.
    func idToken(user: UserRecord, proof: SignInProof, sid: String, scopes: [String], client: ClientRegistration,
                 config: SimulatorConfig, nonce: String?) -> String {
        let now = state.now()
        var claims: JSONObject = [
            "iss": .string(state.issuer), "sub": .string(user.id), "aud": .string(client.id), "azp": .string(client.id),
            "exp": .int(Int64(now) + Int64(config.tokens.idTokenLifetimeSeconds)), "iat": .int(Int64(now)),
            "auth_time": .int(Int64(proof.authTime)), "sid": .string(sid), "acr": .string(proof.acr),
            "amr": .array(proof.amr.map { .string($0) }),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        for (key, value) in Self.userClaims(user, scopes: scopes) where key != "sub" { claims[key] = value }
        return state.signingKey.sign(.object(claims))
    }

    /// The user's claims by scope (userinfo and id_token).
    static func userClaims(_ user: UserRecord, scopes: [String]) -> JSONObject {
        var claims: JSONObject = ["sub": .string(user.id)]
        if scopes.contains("email") {
            claims["email"] = .string(user.email)
            claims["email_verified"] = .bool(user.emailConfirmed)
        }
        if scopes.contains("profile") {
            if let name = user.firstName { claims["given_name"] = .string(name) }
            if let name = user.lastName { claims["family_name"] = .string(name) }
            if let name = user.displayName { claims["name"] = .string(name) }
        }
        return claims
    }
}
