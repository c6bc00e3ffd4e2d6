import Core
import Crypto
import HTTP
import WebAuthn

/// `/connect/passkey/begin`, `/connect/passkey/enroll/begin`, `/connect/passkey/enroll`.
extension SimulatorCore {
    /// Anonymous: `client_id` picks the RP-ID. Answers camelCase
    /// `{"ceremonyId","options"}` with bare WebAuthn request options.
    func passkeyBegin(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        let form = await exchange.form() ?? []
        let basic = CallerContext.basicClient(exchange.request.headers, config: config)
        let client = basic ?? form.first("client_id").flatMap(config.client)
        exchange.record.clientId = client?.id ?? form.first("client_id")
        exchange.record.clientAuth = basic != nil ? "basic" : (client == nil ? "none" : "public")
        let source: CallerSource
        switch CallerContext.source(exchange, basicClient: basic, rateLimited: true, config: config) {
        case .success(let resolved): source = resolved
        case .failure(let refusal): return refusal.response
        }
        guard let client else {
            return Reply.problem(.badRequest, title: "Passkey.InvalidClient", detail: "client_id is missing or unknown.")
        }
        let limitKeys = keys(source: source, target: nil, client: client.id, config: config)
        if let refusal = rateLimit(RateLimitPolicyName.passkeyBegin, keys: limitKeys, &exchange, config: config) { return refusal }
        guard config.realm.nativeGrants else { return Self.nativeGrantsDisabled() }
        guard let rpId = client.rpId else { return Self.passkeyUnavailable() }
        let challenge = Identifiers.randomBytes(32)
        let ceremony = startCeremony(.assertion, client: client, rpId: rpId, challenge: challenge, userId: nil, config: config)
        let options = PublicKeyCredentialRequestOptions(rpId: rpId, challenge: challenge, userVerification: .required,
                                                        timeoutMilliseconds: config.tokens.ceremonyLifetimeSeconds * 1000)
        state.stats.count("passkeys", "assertionCeremonies")
        return Reply.json(.ok, ["ceremonyId": .string(ceremony), "options": options.json], noStore: true)
    }

    /// Bearer: creation options for the token's user under the token's
    /// client's RP-ID.
    func enrollBegin(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        guard let token = bearer(&exchange) else { return Reply.invalidToken() }
        guard config.realm.nativeGrants else { return Self.nativeGrantsDisabled() }
        let source: CallerSource
        switch CallerContext.source(exchange, basicClient: nil, rateLimited: true, config: config) {
        case .success(let resolved): source = resolved
        case .failure(let refusal): return refusal.response
        }
        guard let userId = token.userId, let user = state.identity.withLock({ $0.users[userId] }) else {
            return Reply.invalidToken()
        }
        let limitKeys = keys(source: source, target: userId, client: token.clientId, config: config)
        if let refusal = rateLimit(RateLimitPolicyName.passkeyBegin, keys: limitKeys, &exchange, config: config) { return refusal }
        if let refusal = recentSignInRefusal(token, config: config) { return refusal }
        guard let client = config.client(token.clientId), let rpId = client.rpId else { return Self.passkeyUnavailable() }
        let challenge = Identifiers.randomBytes(32)
        let existing = state.identity.withLock { store in
            store.passkeys.values.filter { $0.userId == userId && $0.rpId == rpId }.map(\.credentialId)
        }
        let ceremony = startCeremony(.registration, client: client, rpId: rpId, challenge: challenge, userId: userId,
                                     config: config)
        let party = RelyingParty(id: rpId, name: config.realm.branding.productName ?? "Modgud", allowedOrigins: client.origins)
        let options = PublicKeyCredentialCreationOptions(
            relyingParty: party, userId: Array(user.id.utf8), userName: user.email,
            userDisplayName: user.displayName ?? user.email, challenge: challenge, excludeCredentials: existing,
            timeoutMilliseconds: config.tokens.ceremonyLifetimeSeconds * 1000)
        state.stats.count("passkeys", "registrationCeremonies")
        return Reply.json(.ok, ["ceremonyId": .string(ceremony), "options": options.json], noStore: true)
    }

    /// Bearer, JSON `{"ceremonyId","attestation"}`: verifies the
    /// registration for real and stores the credential.
    func enroll(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        guard let token = bearer(&exchange) else { return Reply.invalidToken() }
        guard config.realm.nativeGrants else { return Self.nativeGrantsDisabled() }
        if let refusal = recentSignInRefusal(token, config: config) { return refusal }
        guard let userId = token.userId else { return Reply.invalidToken() }
        guard let body = await exchange.json(),
              let ceremonyId = body.value(forKeyIgnoringCase: "ceremonyId")?.stringValue,
              let attestation = Self.embeddedJSON(body.value(forKeyIgnoringCase: "attestation"))
        else { return Reply.message(.badRequest, "The request must carry ceremonyId and attestation.") }
        let now = state.now()
        let ceremony: PasskeyCeremony? = state.identity.withLock { store in
            guard let found = store.ceremonies[ceremonyId] else { return nil }
            store.ceremonies[ceremonyId] = nil
            return found
        }
        guard let ceremony, ceremony.kind == .registration, ceremony.userId == userId, ceremony.expiresAt > now else {
            return Reply.message(.badRequest, "The passkey ceremony is invalid or has expired.")
        }
        let party = RelyingParty(id: ceremony.rpId, name: config.realm.branding.productName ?? "Modgud",
                                 allowedOrigins: ceremony.origins)
        let credential: RegisteredCredential
        do {
            let response = try RegistrationResponse(json: attestation)
            credential = try party.verifyRegistration(response, challenge: ceremony.challenge)
        } catch {
            state.stats.count("passkeys", "registrationsRefused")
            state.logger.info("passkey.registration_refused", ["reason": .string(String(describing: error))])
            return Reply.message(.badRequest, "The passkey could not be verified.")
        }
        let record = PasskeyRecord(id: Identifiers.guid(), credentialId: credential.id, userId: userId, rpId: ceremony.rpId,
                                   publicKey: credential.publicKey.bytes, signCount: credential.signCount,
                                   displayName: "Passkey", createdAt: now, lastUsedAt: nil)
        let stored: UserRecord? = state.identity.withLock { store in
            guard !store.passkeys.values.contains(where: { $0.credentialId == credential.id }) else { return nil }
            store.passkeys[record.id] = record
            return store.users[userId]
        }
        guard let user = stored else { return Reply.message(.badRequest, "This passkey is already registered.") }
        state.stats.count("passkeys", "enrolled")
        accountChangeNotice(to: user, what: "A passkey was added to your account.", config: config)
        return Reply.message(.ok, "Passkey enrolled successfully.")
    }

    private func startCeremony(_ kind: PasskeyCeremony.Kind, client: ClientRegistration, rpId: String, challenge: [UInt8],
                               userId: String?, config: SimulatorConfig) -> String {
        let now = state.now()
        let ceremony = PasskeyCeremony(id: Identifiers.guid(), kind: kind, clientId: client.id, rpId: rpId,
                                       challenge: challenge, origins: client.origins, userId: userId,
                                       expiresAt: now + Double(config.tokens.ceremonyLifetimeSeconds))
        state.identity.withLock { store in
            store.ceremonies[ceremony.id] = ceremony
            store.noteOperation(now: now)
        }
        return ceremony.id
    }

    /// A JSON object given as an object or as JSON text in a string.
    static func embeddedJSON(_ value: JSON?) -> JSON? {
        guard let value else { return nil }
        if case .object = value { return value }
        if let text = value.stringValue, let parsed = try? JSON.parse(text), case .object = parsed { return parsed }
        return nil
    }

    static func nativeGrantsDisabled() -> HTTPResponse {
        Reply.problem(.badRequest, title: "NativeGrants.Disabled", detail: "Native passkey sign-in is not enabled for this realm.")
    }

    static func passkeyUnavailable() -> HTTPResponse {
        Reply.problem(.serviceUnavailable, title: "Passkey.Unavailable",
                      detail: "Passkey sign-in is not available: the client has no WebAuthn RP-ID.")
    }
}
