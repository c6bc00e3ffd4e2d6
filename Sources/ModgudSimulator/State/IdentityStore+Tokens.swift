/// Tokens minted for one request.
struct IssuedTokens: Sendable {
    var accessToken: String
    var expiresIn: Int
    var refreshToken: String?
    var familyId: String
    var scopes: [String]
    var resources: [String]
    var userId: String?
    var proof: SignInProof?
    var sid: String
}

/// Why a refresh was refused, and what it cost the family.
struct RefreshRefusal: Error, Sendable {
    var error: String
    var description: String
    var familyRevoked = false
}

/// Lifetimes that apply to one issuance.
struct TokenLifetimes: Sendable {
    var access: Int
    var refresh: Int
}

extension IdentityStore {
    /// Starts a token family (one sign-in) and mints its first tokens; a
    /// refresh token only when `withRefresh` (offline_access and the
    /// refresh_token grant).
    mutating func startFamily(userId: String?, clientId: String, scopes: [String], resources: [String],
                              proof: SignInProof?, sid: String? = nil, withRefresh: Bool, lifetimes: TokenLifetimes,
                              now: Double) -> IssuedTokens {
        let family = TokenFamily(id: Identifiers.guid(), userId: userId, clientId: clientId, scopes: scopes,
                                 resources: resources, proof: proof, sid: sid ?? Identifiers.guid(),
                                 securityStamp: userId.flatMap { users[$0]?.securityStamp })
        families[family.id] = family
        return mint(familyId: family.id, scopes: scopes, resources: resources, withRefresh: withRefresh,
                    lifetimes: lifetimes, now: now)
    }

    /// Mints an access token (and a refresh token) in an existing family.
    mutating func mint(familyId: String, scopes: [String], resources: [String], withRefresh: Bool,
                       lifetimes: TokenLifetimes, now: Double) -> IssuedTokens {
        let family = families[familyId]!
        let access = Identifiers.token()
        accessTokens[access] = AccessTokenRecord(
            familyId: familyId, userId: family.userId, clientId: family.clientId, scopes: scopes, resources: resources,
            issuedAt: now, expiresAt: now + Double(lifetimes.access), proof: family.proof)
        families[familyId]!.accessTokens.append(access)
        var refresh: String?
        if withRefresh {
            let token = Identifiers.token()
            refreshTokens[token] = RefreshTokenRecord(familyId: familyId, issuedAt: now,
                                                      expiresAt: now + Double(lifetimes.refresh))
            families[familyId]!.refreshTokens.append(token)
            refresh = token
        }
        noteOperation(now: now)
        return IssuedTokens(accessToken: access, expiresIn: lifetimes.access, refreshToken: refresh, familyId: familyId,
                            scopes: scopes, resources: resources, userId: family.userId, proof: family.proof,
                            sid: family.sid)
    }

    /// Revokes a family and every token in it; false when it already was.
    @discardableResult
    mutating func revokeFamily(_ id: String) -> Bool {
        guard let family = families[id], !family.revoked else { return false }
        families[id]!.revoked = true
        for token in family.accessTokens { accessTokens[token]?.revoked = true }
        return true
    }

    /// Redeems a refresh token: rotation on success; a replay after the
    /// leeway revokes the whole family; a replay within it mints fresh
    /// tokens (OpenIddict's reuse leeway).
    mutating func refresh(_ token: String, clientId: String, scopes requestedScopes: [String]?, resources requested: [String],
                          leeway: Int, requiresMulti: Bool, lifetimes: TokenLifetimes, now: Double)
        -> Result<(tokens: IssuedTokens, leewayReplay: Bool), RefreshRefusal> {
        guard let record = refreshTokens[token], let family = families[record.familyId] else {
            return .failure(RefreshRefusal(error: "invalid_grant", description: "The specified refresh token is invalid."))
        }
        guard family.clientId == clientId else {
            return .failure(RefreshRefusal(error: "invalid_grant",
                                           description: "The specified refresh token cannot be used by this client application."))
        }
        guard !family.revoked else {
            return .failure(RefreshRefusal(error: "invalid_grant", description: "The specified refresh token is no longer valid."))
        }
        var leewayReplay = false
        if let redeemedAt = record.redeemedAt {
            guard now - redeemedAt <= Double(leeway), leeway > 0 else {
                revokeFamily(family.id)
                return .failure(RefreshRefusal(error: "invalid_grant",
                                               description: "The specified refresh token has already been redeemed.",
                                               familyRevoked: true))
            }
            leewayReplay = true
        }
        guard record.expiresAt > now else {
            return .failure(RefreshRefusal(error: "invalid_grant", description: "The specified refresh token is no longer valid."))
        }
        if let userId = family.userId {
            guard let user = users[userId], user.securityStamp == family.securityStamp else {
                revokeFamily(family.id)
                return .failure(RefreshRefusal(error: "invalid_grant",
                                               description: "The specified refresh token is no longer valid.", familyRevoked: true))
            }
            if requiresMulti, family.proof?.multi != true {
                return .failure(RefreshRefusal(error: "invalid_grant",
                                               description: "The application now requires a stronger sign-in"))
            }
        }
        guard requested.allSatisfy(family.resources.contains) else {
            return .failure(RefreshRefusal(error: "invalid_target",
                                           description: "The specified resource is not allowed for this refresh token."))
        }
        let scopes = requestedScopes ?? family.scopes
        guard scopes.allSatisfy(family.scopes.contains) else {
            return .failure(RefreshRefusal(error: "invalid_scope",
                                           description: "The specified scope was not granted to this refresh token."))
        }
        if !leewayReplay { refreshTokens[token]!.redeemedAt = now }
        let issued = mint(familyId: family.id, scopes: scopes, resources: requested.isEmpty ? family.resources : requested,
                          withRefresh: true, lifetimes: lifetimes, now: now)
        return .success((issued, leewayReplay))
    }

    /// A live access token (known, not revoked, not expired).
    func validAccessToken(_ token: String, now: Double) -> AccessTokenRecord? {
        guard let record = accessTokens[token], !record.revoked, record.expiresAt > now else { return nil }
        if let family = families[record.familyId], family.revoked { return nil }
        if let userId = record.userId {
            guard let user = users[userId], user.securityStamp == families[record.familyId]?.securityStamp else { return nil }
        }
        return record
    }

    /// RFC 7009 revocation by `clientId`: an access token alone, a refresh
    /// token with its family. Unknown tokens and other clients' tokens are
    /// ignored. Returns what was revoked (`access`, `refresh` or nil).
    mutating func revoke(_ token: String, clientId: String) -> String? {
        if let record = accessTokens[token], record.clientId == clientId {
            accessTokens[token]!.revoked = true
            return "access"
        }
        if let record = refreshTokens[token], families[record.familyId]?.clientId == clientId {
            revokeFamily(record.familyId)
            return "refresh"
        }
        return nil
    }

    /// Ends every family of a session id (logout).
    mutating func revokeSession(sid: String) -> Int {
        let ids = families.values.filter { $0.sid == sid }.map(\.id)
        return ids.filter { revokeFamily($0) }.count
    }
}
