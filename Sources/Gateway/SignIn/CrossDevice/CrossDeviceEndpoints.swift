import Core
import HTTP
import Routing
import Sessions

/// Cross-device sign-in with a match code (Docs/handoff.md): the gateway
/// runs Modgud's device authorization grant (RFC 8628) for a browser that
/// is approved from another device. `POST /bff/cross-device/start`,
/// `GET /bff/cross-device/{requestId}/context` (public: no secret in it),
/// `POST /bff/cross-device/poll`. Not registered when BFF_CROSS_DEVICE is
/// false, so all three answer 404.
struct CrossDeviceEndpoints: Sendable {
    let shared: SignInContext
    let completion: SignInCompletion
    let settings: CrossDeviceSettings

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        guard settings.enabled else { return }
        let start = CrossDeviceStart(shared: shared, metrics: settings.metrics)
        let poll = CrossDevicePoll(shared: shared, completion: completion, metrics: settings.metrics)
        router.add(.post, "/bff/cross-device/start", options: options) { request, context in
            try await start.respond(request, context)
        }
        router.add(.get, "/bff/cross-device/{requestId}/context", options: options) { _, context in
            try await self.context(requestID: context.parameters["requestId"] ?? "", context)
        }
        router.add(.post, "/bff/cross-device/poll", options: options) { request, context in
            try await poll.respond(request, context)
        }
    }

    /// `{"startedSecondsAgo","device","address","expiresIn"}`: what the
    /// gateway saw at the start. Unknown: 403; expired: 410.
    private func context(requestID: String, _ context: RequestContext) async throws -> HTTPResponse {
        let lookup = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.crossDeviceContext(requestID: requestID)
        }
        switch lookup {
        case .found(let found):
            let now = shared.sessions.now
            let body: JSON = [
                "startedSecondsAgo": .int(Int64(now > found.startedAt ? (now - found.startedAt) / 1000 : 0)),
                "device": .string(found.device), "address": .string(found.address),
                "expiresIn": .int(Int64((found.expiresAt - now + 999) / 1000)),
            ]
            return .json(.ok, body)
        case .expired:
            throw Self.expired
        case .tampered:
            context.logger.warning("crossdevice.tampered", ["record": "context"])
            throw Self.denied
        case .noCookie, .malformedCookie, .notFound:
            throw Self.denied
        }
    }

    /// The one refusal for an unknown, another browser's or a denied request.
    static let denied = GatewayError(.forbidden, "access_denied", "This sign-in is unknown here or was refused.")
    /// The device code expired before anyone approved it.
    static let expired = GatewayError(HTTPStatus(410), "expired_token", "This sign-in has expired; start again.")
}
