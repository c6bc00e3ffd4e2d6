import Core
import HTTP
import Modgud
import Routing
import Sessions

/// `POST /bff/cross-device/poll {"requestId"}`, the starting browser only:
/// its `__Host-bff-xd` cookie and the request id together find the device
/// code; without them `403 access_denied` and nothing is asked of Modgud.
/// Modgud's token endpoint is asked no more often than the interval
/// however often browsers poll: the one poll whose compare-and-set moves
/// "next allowed poll" forward asks, every other answers
/// `202 {"status":"pending","interval"}` at once. Approval becomes a new
/// session for this browser; denial (403) and expiry (410) end the request
/// and sign nothing; Modgud's 429 is relayed byte for byte.
struct CrossDevicePoll: Sendable {
    let shared: SignInContext
    let completion: SignInCompletion
    let metrics: CrossDeviceMetrics

    static let endpoint = "device_token"

    func respond(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let input = try await JSONRequest.read(request, context: context)
        let requestID = try input.string("requestId", maxLength: 64)
        let cookieHeader = SignInContext.cookieHeader(request)
        let lookup = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.crossDeviceRecord(requestID: requestID, cookieHeader: cookieHeader)
        }
        guard case .found(var record) = lookup else { try refuse(lookup, context) }
        if record.isExpired(at: shared.sessions.now) {
            try await end(record, outcome: "expired", request, context)
            throw CrossDeviceEndpoints.expired
        }
        let claimed = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.claimCrossDevicePoll(&record)
        }
        guard claimed else { return Self.pending(record.request.intervalSeconds) }
        return try await ask(&record, request, context)
    }

    /// The one call to Modgud this interval, and what its answer means.
    private func ask(_ record: inout CrossDeviceRecord, _ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let reply: ModgudReply
        do {
            reply = try await shared.modgud.token(.deviceCode(record.request.deviceCode), forwardedFor: shared.clientAddress(request))
        } catch {
            metrics.polls.increment(["error"])
            throw shared.relay.failure(error, endpoint: Self.endpoint, context: context)
        }
        if reply.isSuccess { return try await approve(reply, record, request, context) }
        if reply.isRateLimited {
            metrics.polls.increment(["rate_limited"])
            metrics.signIns.increment(["rate_limited"])
            return shared.relay.rateLimitedResponse(reply, endpoint: Self.endpoint, context: context)
        }
        switch reply.status.code < 500 ? reply.oauthError : nil {
        case "authorization_pending":
            counted("pending")
            return Self.pending(record.request.intervalSeconds)
        case "slow_down":
            counted("slow_down")
            _ = try await shared.store(context) { () async throws(SessionError) in
                try await shared.sessions.slowCrossDevicePolls(&record)
            }
            context.logger.info("crossdevice.slowed", ["interval": .int(record.request.intervalSeconds)])
            return Self.pending(record.request.intervalSeconds)
        case "access_denied":
            counted("denied")
            try await end(record, outcome: "denied", request, context)
            throw CrossDeviceEndpoints.denied
        case "expired_token", "invalid_grant":
            // Modgud forgets an expired code: both mean "start again".
            counted("expired")
            try await end(record, outcome: "expired", request, context)
            throw CrossDeviceEndpoints.expired
        default:
            // Modgud failing (5xx) or refusing the gateway: the next poll
            // after the interval asks again.
            metrics.polls.increment(["error"])
            context.logger.warning("crossdevice.poll_failed", ["status": .int(reply.status.code),
                                                              "error": .string(ModgudReply.label(reply.oauthError ?? "none"))])
            return shared.relay.oauthError(reply, endpoint: Self.endpoint, context: context)
        }
    }

    /// A call Modgud answered with one of the grant's own answers (the
    /// call itself is counted by the Modgud client).
    private func counted(_ answer: String) {
        metrics.polls.increment([answer])
    }

    /// Tokens for this browser: the request ends (both records, the
    /// cookie), then a new session starts as by any sign-in, its id_token
    /// verified.
    private func approve(_ reply: ModgudReply, _ record: CrossDeviceRecord, _ request: HTTPRequest,
                         _ context: RequestContext) async throws -> HTTPResponse {
        counted("approved")
        guard let json = reply.json, let tokens = TokenSet(json: json) else {
            metrics.signIns.increment(["failed"])
            throw shared.relay.failure(ModgudFailure.badResponse, endpoint: Self.endpoint, context: context)
        }
        do {
            try await shared.sessions.endCrossDevice(record)
        } catch {
            metrics.signIns.increment(["failed"])
            await completion.revokeAbandoned(tokens, context)
            throw SignInContext.gatewayError(error, context: context)
        }
        let expiredCookie = shared.sessions.expiringCrossDeviceCookie()
        let answer: HTTPResponse
        do {
            answer = try await completion.signIn(tokens, request, context, audiencesAsked: true, method: .crossDevice,
                                                 verifiesIDToken: true) { session, cookies in
                .json(.ok, UserView.body(session), cookies: cookies + [expiredCookie])
            }
        } catch {
            metrics.signIns.increment(["failed"])
            throw error
        }
        metrics.signIns.increment([answer.status == .ok ? "approved" : "failed"])
        if answer.status == .ok {
            context.logger.info("crossdevice.approved")
            shared.audit.record("audit.crossdevice.approved", context, address: shared.clientAddress(request))
        }
        return answer
    }

    /// Ends the request (denied, expired): both records go, nothing is signed.
    private func end(_ record: CrossDeviceRecord, outcome: String, _ request: HTTPRequest, _ context: RequestContext)
        async throws {
        metrics.signIns.increment([outcome])
        shared.audit.record("audit.crossdevice." + outcome, context, address: shared.clientAddress(request))
        context.logger.info("crossdevice.ended", ["outcome": .string(outcome)])
        try await shared.store(context) { () async throws(SessionError) in try await shared.sessions.endCrossDevice(record) }
    }

    /// No record for this browser and id: the one 403, whatever the
    /// reason (no cookie, another browser's, an unknown or ended request).
    private func refuse(_ lookup: SessionLookup<CrossDeviceRecord>, _ context: RequestContext) throws -> Never {
        let reason: String
        switch lookup {
        case .noCookie: reason = "no_cookie"
        case .malformedCookie: reason = "malformed"
        case .tampered:
            reason = "tampered"
            context.logger.warning("crossdevice.tampered", ["record": "request"])
        case .notFound, .expired, .found: reason = "unknown"
        }
        context.logger.info("crossdevice.poll_refused", ["reason": .string(reason)])
        throw CrossDeviceEndpoints.denied
    }

    static func pending(_ interval: Int) -> HTTPResponse {
        .json(HTTPStatus(202), ["status": "pending", "interval": .int(Int64(interval))])
    }
}
