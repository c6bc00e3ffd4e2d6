import Core
import HTTP
import Modgud
import Observability
import Routing
import Sessions

/// What the sign-in and session endpoints share: the Modgud client, the
/// session manager, the relay rules, the client-address resolver and the
/// verifier of Modgud's signed tokens, the audit trail.
public struct SignInContext: Sendable {
    public let modgud: ModgudClient
    public let sessions: SessionManager
    public let relay: ModgudRelay
    public let addresses: ClientAddressResolver
    /// Verifies id_tokens and logout tokens against Modgud's keys.
    public let identity: IdentityTokens
    /// Where sign-in events are written and counted.
    public let audit: AuditTrail

    /// `identity`: by default, Modgud's keys with a 60-second clock skew;
    /// `audit`: by default, none.
    public init(modgud: ModgudClient, sessions: SessionManager, relay: ModgudRelay, addresses: ClientAddressResolver,
                identity: IdentityTokens? = nil, audit: AuditTrail = .off) {
        self.modgud = modgud
        self.audit = audit
        self.sessions = sessions
        self.relay = relay
        self.addresses = addresses
        self.identity = identity ?? IdentityTokens(modgud: modgud)
    }

    /// The browser's address, for `Modgud-Forwarded-For`.
    func clientAddress(_ request: HTTPRequest) -> IPAddress {
        addresses.clientAddress(of: request)
    }

    /// Every `Cookie` field of the request, joined as one header.
    static func cookieHeader(_ request: HTTPRequest) -> String? {
        // Browsers send one field; join only when there are more.
        let headers = request.headers
        var joined: String?
        for index in 0..<headers.count where headers.nameEquals(at: index, lowercase: "cookie") {
            let value = headers.value(at: index)
            joined = joined.map { $0 + "; " + value } ?? value
        }
        return joined
    }

    /// `refusal` for a request that found no flow to continue, with the
    /// flow cookie expired when the request named it twice (a planted
    /// one beside the browser's own: neither is used, and the browser
    /// starts again with a clean slate).
    func noFlow(_ refusal: GatewayError, _ request: HTTPRequest) -> GatewayError {
        guard let header = Self.cookieHeader(request), sessions.namesSeveralFlowCookies(header) else { return refusal }
        return refusal.withCookie(sessions.expiringFlowCookie())
    }

    /// Takes this browser's flow record (single use) when `accepts` it;
    /// nil when there is none or it is not for this request, which then
    /// leaves it in place.
    func takeFlow(_ request: HTTPRequest, _ context: RequestContext,
                  where accepts: @escaping (FlowState) -> Bool) async throws -> FlowState? {
        let lookup = try await store(context) { () async throws(SessionError) in
            try await sessions.takeFlow(cookieHeader: Self.cookieHeader(request), where: accepts)
        }
        if case .tampered = lookup { context.logger.warning("flow.tampered") }
        return lookup.value
    }

    /// Puts back flow state a request took for a call Modgud turned away
    /// without using it (`SessionManager.restoreFlow`). Best effort: a flow
    /// that cannot be put back ends as it would have.
    func restoreFlow(_ flow: FlowState, _ request: HTTPRequest, _ context: RequestContext) async {
        do {
            try await sessions.restoreFlow(flow, cookieHeader: Self.cookieHeader(request))
        } catch {
            context.logger.warning("flow.restore_failed", ["reason": .string(error.description)])
        }
    }

    /// Runs a session-store operation; a store that is down or slow becomes
    /// `503 store_unavailable` with `Retry-After`, anything else a 500.
    func store<T>(_ context: RequestContext, _ body: () async throws(SessionError) -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw Self.gatewayError(error, context: context)
        }
    }

    static func gatewayError(_ error: SessionError, context: RequestContext) -> GatewayError {
        switch error {
        case .store:
            // Down, slow, or refusing (out of memory, read-only replica, ACL):
            // a failing dependency, answered 503 with Retry-After.
            context.logger.warning("session.store_unavailable", ["reason": .string(error.description)])
            return .storeUnavailable
        default:
            context.logger.error("session.failed", ["reason": .string(error.description)])
            return .internalError
        }
    }
}

extension GatewayError {
    public static let storeUnavailable = GatewayError(.serviceUnavailable, "store_unavailable",
                                                      "The session store is unavailable; try again shortly.",
                                                      headers: ["Retry-After": "2"])
    public static let unauthenticated = GatewayError(.unauthorized, "unauthenticated", "There is no signed-in session.")
}

extension HTTPResponse {
    /// A JSON answer of the gateway's own, never cached.
    static func json(_ status: HTTPStatus = .ok, _ body: JSON, cookies: [String] = []) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
        for cookie in cookies { headers.add("Set-Cookie", cookie) }
        return HTTPResponse(status: status, headers: headers, bytes: body.serialized)
    }
}
