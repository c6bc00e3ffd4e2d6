import Core
import HTTP
import Modgud
import Routing
import Sessions

/// `POST /bff/cross-device/start`: asks Modgud's device authorization
/// endpoint (Basic + `Modgud-Forwarded-For`) for a device code, keeps it
/// server-side bound to this browser by the `__Host-bff-xd` cookie, and
/// answers `201 {"requestId","matchCode","verificationUri","expiresIn","interval"}`:
/// the match code is Modgud's `user_code`; `verification_uri_complete` is
/// never passed on. Modgud's 429 is relayed byte for byte.
struct CrossDeviceStart: Sendable {
    let shared: SignInContext
    let metrics: CrossDeviceMetrics

    static let endpoint = "device_authorization"

    func respond(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let client = shared.clientAddress(request)
        let reply: ModgudReply
        do {
            reply = try await shared.modgud.deviceAuthorization(forwardedFor: client)
        } catch {
            metrics.signIns.increment(["failed"])
            throw shared.relay.failure(error, endpoint: Self.endpoint, context: context)
        }
        if reply.isRateLimited {
            metrics.signIns.increment(["rate_limited"])
            return shared.relay.rateLimitedResponse(reply, endpoint: Self.endpoint, context: context)
        }
        guard reply.isSuccess else {
            metrics.signIns.increment(["failed"])
            context.logger.warning("crossdevice.start_refused", ["status": .int(reply.status.code),
                                                                 "error": .string(ModgudReply.label(reply.oauthError ?? "none"))])
            return shared.relay.oauthError(reply, endpoint: Self.endpoint, context: context)
        }
        guard let json = reply.json, let grant = DeviceAuthorization(json: json) else {
            metrics.signIns.increment(["failed"])
            throw shared.relay.failure(ModgudFailure.badResponse, endpoint: Self.endpoint, context: context)
        }
        let now = shared.sessions.now
        let expiresAt = now + UInt64(grant.expiresIn) * 1000
        // The first poll may ask at once; each later one an interval after the last.
        let secret = CrossDeviceRequest(deviceCode: grant.deviceCode, intervalSeconds: grant.interval, nextPollAt: now,
                                        expiresAt: expiresAt)
        let visible = CrossDeviceContext(startedAt: now, expiresAt: expiresAt,
                                         device: DeviceLine.describe(userAgent: request.headers["User-Agent"]),
                                         address: client.description)
        let (requestID, cookie): (String, Secret)
        do {
            (requestID, cookie) = try await shared.store(context) { () async throws(SessionError) in
                let requestID = try SessionManager.newCrossDeviceRequestID()
                let cookie = try await shared.sessions.beginCrossDevice(secret, context: visible, requestID: requestID,
                                                                       cookieHeader: SignInContext.cookieHeader(request))
                return (requestID, cookie)
            }
        } catch {
            metrics.signIns.increment(["failed"])
            throw error
        }
        metrics.signIns.increment(["started"])
        context.logger.info("crossdevice.started", ["expiresIn": .int(grant.expiresIn), "interval": .int(grant.interval)])
        let body: JSON = ["requestId": .string(requestID), "matchCode": .string(grant.userCode),
                          "verificationUri": .string(grant.verificationURI), "expiresIn": .int(Int64(grant.expiresIn)),
                          "interval": .int(Int64(grant.interval))]
        return .json(.created, body, cookies: [cookie.revealed])
    }
}
