import Core
import HTTP

/// `urn:cocoar:otp` and `urn:cocoar:magic`, and the second factor after them.
extension SimulatorCore {
    func otpGrant(_ request: TokenRequest, _ exchange: inout Exchange) async -> HTTPResponse {
        if request.form.first("mfa_token") != nil { return await mfaContinuation(request) }
        let config = request.config
        let username = request.form.first("username")?.trimmingSpaces ?? ""
        let code = request.form.first("otp_code")?.trimmingSpaces ?? ""
        if !username.isEmpty {
            let limitKeys = keys(source: request.source, target: username, client: request.client.id, config: config)
            if let refusal = rateLimit(RateLimitPolicyName.emailOtp, keys: limitKeys, &exchange, config: config) { return refusal }
        }
        guard !username.isEmpty, !code.isEmpty else { return await factorFailure("Invalid or expired code.", config: config) }
        let now = state.now()
        guard let user = state.identity.withLock({ $0.redeemCode(email: username, code: code, now: now) }) else {
            return await factorFailure("Invalid or expired code.", config: config)
        }
        return afterFirstFactor(user, SignInProof(authTime: now, amr: ["otp"], multi: false), request)
    }

    func magicGrant(_ request: TokenRequest) async -> HTTPResponse {
        if request.form.first("mfa_token") != nil { return await mfaContinuation(request) }
        let userId = request.form.first("user_id") ?? "", token = request.form.first("magic_token") ?? ""
        let now = state.now()
        guard !userId.isEmpty, !token.isEmpty,
              let user = state.identity.withLock({ $0.redeemMagicLink(userId: userId, token: token, now: now) })
        else { return await factorFailure("Invalid or expired link.", config: request.config) }
        return afterFirstFactor(user, SignInProof(authTime: now, amr: ["otp"], multi: false), request)
    }

    /// The second-factor decision once the first factor is proven (the
    /// factor is spent either way): tokens, `mfa_required`,
    /// `interaction_required`, or the older server's `invalid_grant`.
    private func afterFirstFactor(_ user: UserRecord, _ proof: SignInProof, _ request: TokenRequest) -> HTTPResponse {
        let config = request.config, signIn = config.realm.signIn
        var nativeMethods: [String] = [], browserMethods: [String] = []
        if user.totpSecret != nil {
            if signIn.totp {
                nativeMethods = ["totp"]
                browserMethods = ["totp"]
            } else if signIn.ownFactorNotOffered == "RequireViaBrowser" {
                browserMethods = ["totp"]
            }
        }
        if nativeMethods.isEmpty, browserMethods.isEmpty {
            guard !signIn.requiresMulti else {
                return Reply.oauth("interaction_required",
                                   "A second factor must be set up before signing in to this application.")
            }
            return issueUserTokens(userId: user.id, proof: proof, client: request.client, scopes: request.scopes,
                                   resources: request.resources, config: config)
        }
        if let totp = request.form.first("totp_code"), !totp.isEmpty, nativeMethods.contains("totp"),
           let secret = user.totpSecret {
            guard TOTP.verify(totp, secret: secret, time: state.now()) else {
                state.stats.count("mfa", "invalidCode")
                return Reply.oauth("invalid_grant", "The two-factor code is invalid.")
            }
            state.stats.count("mfa", "inline")
            let strong = SignInProof(authTime: proof.authTime, amr: proof.amr + ["mfa"], multi: true)
            return issueUserTokens(userId: user.id, proof: strong, client: request.client, scopes: request.scopes,
                                   resources: request.resources, config: config)
        }
        if config.responses.olderServerMfa, !nativeMethods.isEmpty {
            state.stats.count("mfa", "olderServerRefusal")
            return Reply.oauth("invalid_grant", "Two-factor authentication is required; supply totp_code.")
        }
        let now = state.now()
        let token = Identifiers.token()
        state.identity.withLock { store in
            store.mfa[token] = MFAChallenge(userId: user.id, clientId: request.client.id, grantType: request.grantType,
                                            scopes: request.scopes, resources: request.resources, firstFactor: proof,
                                            expiresAt: now + Double(config.tokens.mfaTokenLifetimeSeconds),
                                            attemptsLeft: config.tokens.mfaTokenAttempts)
            store.noteOperation(now: now)
        }
        state.stats.count("mfa", "required")
        let body: JSON = [
            "error": "mfa_required",
            "error_description": "A second factor is required to complete the sign-in.",
            "mfa_token": .string(token),
            "mfa_methods": .string(nativeMethods.joined(separator: " ")),
            "mfa_browser_methods": .string(browserMethods.joined(separator: " ")),
        ]
        return Reply.json(.badRequest, body, noStore: true)
    }

    /// The same grant type again with `mfa_token` and `totp_code`.
    private func mfaContinuation(_ request: TokenRequest) async -> HTTPResponse {
        let config = request.config
        let token = request.form.first("mfa_token") ?? "", totp = request.form.first("totp_code") ?? ""
        let now = state.now()
        enum Outcome { case invalidToken, invalidCode, verified(MFAChallenge) }
        let outcome: Outcome = state.identity.withLock { store in
            guard let challenge = store.mfa[token], challenge.expiresAt > now, challenge.clientId == request.client.id,
                  challenge.grantType == request.grantType, let secret = store.users[challenge.userId]?.totpSecret
            else { return .invalidToken }
            guard TOTP.verify(totp, secret: secret, time: now) else {
                store.mfa[token]!.attemptsLeft -= 1
                if store.mfa[token]!.attemptsLeft <= 0 { store.mfa[token] = nil }
                return .invalidCode
            }
            store.mfa[token] = nil
            return .verified(challenge)
        }
        switch outcome {
        case .invalidToken:
            return await factorFailure("The specified mfa_token is invalid or has expired.", config: config)
        case .invalidCode:
            state.stats.count("mfa", "invalidCode")
            return Reply.oauth("invalid_grant", "The two-factor code is invalid.")
        case .verified(let challenge):
            state.stats.count("mfa", "completed")
            let proof = SignInProof(authTime: now, amr: challenge.firstFactor.amr + ["mfa"], multi: true)
            return issueUserTokens(userId: challenge.userId, proof: proof, client: request.client, scopes: challenge.scopes,
                                   resources: challenge.resources, config: config)
        }
    }
}
