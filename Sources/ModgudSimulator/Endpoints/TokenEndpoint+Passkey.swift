import Core
import HTTP
import WebAuthn

/// `urn:cocoar:passkey`: a real assertion check against the ceremony's
/// RP-ID, challenge and origins.
extension SimulatorCore {
    func passkeyGrant(_ request: TokenRequest) async -> HTTPResponse {
        let config = request.config
        let ceremonyId = request.form.first("ceremony_id") ?? ""
        let now = state.now()
        let ceremony: PasskeyCeremony? = state.identity.withLock { store in
            guard let found = store.ceremonies[ceremonyId], !found.consumed else { return nil }
            store.ceremonies[ceremonyId]!.consumed = true
            return found
        }
        guard let ceremony, ceremony.kind == .assertion, ceremony.expiresAt > now,
              ceremony.clientId == nil || ceremony.clientId == request.client.id,
              let assertionText = request.form.first("assertion"), !assertionText.isEmpty
        else { return await factorFailure("Invalid or expired passkey ceremony.", config: config) }
        guard let json = try? JSON.parse(assertionText), let response = try? AssertionResponse(json: json) else {
            return await passkeyRefused(config)
        }
        let stored = state.identity.withLock { store in
            store.passkeys.values.first { $0.credentialId == response.credentialId && $0.rpId == ceremony.rpId }
        }
        guard let stored, let key = try? COSEKey(bytes: stored.publicKey) else { return await passkeyRefused(config) }
        if let handle = response.userHandle, handle != Array(stored.userId.utf8) { return await passkeyRefused(config) }
        let party = RelyingParty(id: ceremony.rpId, name: config.realm.branding.productName ?? "Modgud",
                                 allowedOrigins: ceremony.origins)
        guard let verified = try? party.verifyAssertion(response, challenge: ceremony.challenge, credentialPublicKey: key,
                                                        storedSignCount: stored.signCount),
              verified.signCountStatus != .possibleClone
        else { return await passkeyRefused(config) }
        let stillThere = state.identity.withLock { store -> Bool in
            guard store.passkeys[stored.id] != nil, store.users[stored.userId] != nil else { return false }
            store.passkeys[stored.id]!.signCount = verified.signCount
            store.passkeys[stored.id]!.lastUsedAt = now
            return true
        }
        guard stillThere else { return await passkeyRefused(config) }
        state.stats.count("passkeys", "assertionsVerified")
        let proof = SignInProof(authTime: now, amr: ["hwk", "user"], multi: true)
        return issueUserTokens(userId: stored.userId, proof: proof, client: request.client, scopes: request.scopes,
                               resources: request.resources, config: config)
    }

    private func passkeyRefused(_ config: SimulatorConfig) async -> HTTPResponse {
        state.stats.count("passkeys", "assertionsRefused")
        return await factorFailure("Passkey verification failed.", config: config)
    }
}
