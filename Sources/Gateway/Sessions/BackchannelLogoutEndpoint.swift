import Core
import HTTP
import HTTPCodec
import OIDC
import Routing
import Sessions

/// `POST /bff/backchannel-logout` (OpenID Connect Back-Channel Logout 1.0):
/// Modgud's server-to-server call when a user signs out there or is
/// disabled. No cookie and no CSRF header: the logout token is the
/// credential. It is verified (`IdentityTokens.verifyLogoutToken`), its
/// `jti` is recorded in the replay cache (one `SET NX PX`, shared by every
/// instance), and then the sessions with its `sid` end, or with a `sub`
/// alone every session of that user. Refresh tokens are not revoked:
/// Modgud ended the grants itself.
///
/// `200` with `Cache-Control: no-store` (a replay too, ending nothing new);
/// every refusal `400 {"error":"invalid_request"}`; a store or key set that
/// cannot be reached `503` with `Retry-After`, and Modgud retries.
struct BackchannelLogoutEndpoint: Sendable {
    let shared: SignInContext
    let replays: any ReplayCache
    let counters: SessionEndCounters

    /// How long a `jti` is remembered: well past the two minutes (plus the
    /// skew) a logout token is accepted for, and past Modgud's retries
    /// (after 1, 5 and 30 minutes), in case it signs a retry afresh under
    /// the same `jti`.
    static let replayWindow: Duration = .seconds(3600)
    /// The form's size limit: a logout token over `JWS.defaultMaximumBytes`
    /// is refused by the verifier, so this only needs to hold one.
    static let maximumBodyBytes = 32 << 10

    func register(in router: inout RouterBuilder) {
        router.add(.post, "/bff/backchannel-logout", options: RouteOptions(maxBodyBytes: Self.maximumBodyBytes, csrf: false)) {
            request, context in
            await logout(request, context)
        }
    }

    private func logout(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
        guard let token = await Self.logoutToken(request, context) else { return refuse("not_a_form", context) }
        let claims: LogoutTokenClaims
        do {
            claims = try await shared.identity.verifyLogoutToken(token)
        } catch .keysUnavailable {
            context.logger.warning("backchannel.keys_unavailable")
            return Self.unavailable
        } catch {
            return refuse(error.description, context)
        }
        let key = Self.replayKey(tokenID: claims.tokenID)
        do {
            guard try await replays.recordFirstUse(key, ttl: Self.replayWindow) else {
                counters.backchannel.increment(["replayed"])
                context.logger.info("backchannel.replayed")
                return Self.done
            }
        } catch {
            context.logger.warning("session.store_unavailable", ["reason": .string(error.description)])
            return Self.unavailable
        }
        let ended: [Session]
        do {
            if let sid = claims.sessionID {
                ended = try await shared.sessions.endAll(sid: sid)
            } else if let subject = claims.subject {
                ended = try await shared.sessions.endAll(subject: subject)
            } else {
                ended = []   // the verifier refuses a token with neither
            }
        } catch {
            // Not done: forget the jti so that Modgud's retry is not taken for a replay.
            context.logger.warning("session.store_unavailable", ["reason": .string(error.description)])
            try? await replays.forgetUse(key)
            return Self.unavailable
        }
        counters.backchannel.increment(["accepted"])
        counters.ended.increment(["backchannel"], by: Double(ended.count))
        shared.audit.sessionEnded(reason: "backchannel", subject: claims.subject ?? ended.first?.data.subject,
                                  sessions: ended.count, context, address: shared.clientAddress(request))
        context.logger.info("backchannel.accepted", ["by": .string(claims.sessionID != nil ? "sid" : "sub"),
                                                     "sessions": .int(ended.count)])
        return Self.done
    }

    /// The one `logout_token` of an `application/x-www-form-urlencoded`
    /// body; nil for anything else.
    static func logoutToken(_ request: HTTPRequest, _ context: RequestContext) async -> String? {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingSpacesAndTabs.lowercased()
        guard type == "application/x-www-form-urlencoded",
              let body = try? await request.body.collect(upTo: context.routeOptions.maxBodyBytes),
              let pairs = FormURLEncoded.parse(body)
        else { return nil }
        let tokens = pairs.filter { $0.name == "logout_token" }
        guard tokens.count == 1, let token = tokens.first?.value, !token.isEmpty else { return nil }
        return token
    }

    /// The replay cache's key for a `jti`: hashed, so no claim value
    /// appears in a key name.
    static func replayKey(tokenID: String) -> String {
        "logout-jti:" + SessionManager.hashedName(label: "modgud-bff/logout-jti/v1", tokenID)
    }

    private func refuse(_ reason: String, _ context: RequestContext) -> HTTPResponse {
        counters.backchannel.increment(["refused"])
        context.logger.info("backchannel.refused", ["reason": .string(reason)])
        return .json(.badRequest, ["error": "invalid_request"])
    }

    static let done = HTTPResponse(status: .ok, headers: ["Cache-Control": "no-store"])
    /// `503` with `Retry-After`: Modgud retries later.
    static var unavailable: HTTPResponse {
        var response = HTTPResponse.json(.serviceUnavailable, ["error": "temporarily_unavailable"])
        response.headers.add("Retry-After", "5")
        return response
    }
}
