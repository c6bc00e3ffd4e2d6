import Core

/// A session that just ended at the simulator: whose, at which client.
struct EndedSession: Sendable, Hashable {
    var clientId: String
    var userId: String
    var sid: String
}

extension SimulatorCore {
    /// Sends back-channel logout tokens for `ended` sessions to every
    /// client among them with a `backchannelLogoutUri`: one token per
    /// session id for a client that requires `sid`, else one per user.
    func notifyLogout(_ ended: [EndedSession], config: SimulatorConfig) {
        var notices: [BackchannelDelivery.Notice] = []
        var seen: Set<String> = []
        for session in ended {
            guard let client = config.client(session.clientId), let uri = client.backchannelLogoutUri else { continue }
            let sid = client.backchannelLogoutSessionRequired ? session.sid : nil
            guard seen.insert("\(client.id)\u{0}\(session.userId)\u{0}\(sid ?? "")").inserted else { continue }
            notices.append(.init(clientId: client.id, uri: uri, token: logoutToken(client: client.id, sub: session.userId, sid: sid)))
        }
        guard !notices.isEmpty else { return }
        state.stats.count("backchannel", "tokens", by: notices.count)
        state.backchannel.send(notices, delays: config.backchannelRetrySeconds, now: { [state] in state.now() })
    }

    /// A logout token (OpenID Connect Back-Channel Logout 1.0 §2.4):
    /// `typ: logout+jwt`, RS256 by the current key; iss, aud, iat, exp
    /// (two minutes), jti, sub, sid when given, the back-channel event; no nonce.
    func logoutToken(client: String, sub: String, sid: String?) -> String {
        let now = Int64(state.now())
        var claims: JSONObject = [
            "iss": .string(state.issuer), "aud": .string(client), "iat": .int(now), "exp": .int(now + 120),
            "jti": .string(Identifiers.token()), "sub": .string(sub),
            "events": ["http://schemas.openid.net/event/backchannel-logout": .object([:])],
        ]
        if let sid { claims["sid"] = .string(sid) }
        return state.signingKey.sign(.object(claims), type: "logout+jwt")
    }
}

extension IdentityStore {
    /// Ends every live token family and browser sign-in with session id `sid`.
    mutating func endSessions(sid: String) -> [EndedSession] {
        browserSessions = browserSessions.filter { $0.value.sid != sid }
        return endFamilies { $0.sid == sid }
    }

    /// Ends every live token family and browser sign-in of a user.
    mutating func endSessions(userId: String) -> [EndedSession] {
        browserSessions = browserSessions.filter { $0.value.userId != userId }
        return endFamilies { $0.userId == userId }
    }

    private mutating func endFamilies(_ matching: (TokenFamily) -> Bool) -> [EndedSession] {
        var ended: [EndedSession] = []
        for family in families.values where matching(family) && !family.revoked {
            guard let userId = family.userId, revokeFamily(family.id) else { continue }
            ended.append(EndedSession(clientId: family.clientId, userId: userId, sid: family.sid))
        }
        return ended
    }
}
