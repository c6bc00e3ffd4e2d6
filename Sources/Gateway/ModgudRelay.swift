import Core
import HTTP
import Modgud
import Observability
import Routing

/// How Modgud's answers reach the browser (Docs/sign-in.md):
/// a 429 byte for byte with `Retry-After` and any `RateLimit-*` headers;
/// other answers with their status and JSON body, minus what the gateway
/// keeps; 5xx and unreachable as 502, a timeout as 504. The calls
/// themselves are counted by the Modgud client (``ModgudCallMetrics``).
public struct ModgudRelay: Sendable {
    let rateLimited: Counter

    public init(metrics: MetricsRegistry) {
        rateLimited = metrics.counter("bff_modgud_rate_limited_total",
                                      help: "Modgud 429 answers passed through to the browser, by endpoint, policy and dimension.",
                                      labels: ["endpoint", "policy", "dimension"])
    }

    /// A 429 exactly as Modgud sent it: status, body bytes, Retry-After,
    /// RateLimit-* and Content-Type. Counted and logged; never retried.
    public func rateLimitedResponse(_ reply: ModgudReply, endpoint: String, context: RequestContext) -> HTTPResponse {
        rateLimited(reply, endpoint: endpoint, context: context).response
    }

    /// `rateLimitedResponse` as an error, for a caller that cannot return
    /// an answer (a token wanted for another endpoint).
    func rateLimited(_ reply: ModgudReply, endpoint: String, context: RequestContext) -> RelayedAnswer {
        let info = reply.rateLimit ?? RateLimitInfo(policy: "unknown", dimension: "unknown", retryAfterSeconds: nil)
        rateLimited.increment([endpoint, Self.label(info.policy), Self.label(info.dimension)])
        context.logger.info("modgud.rate_limited", [
            "endpoint": .string(endpoint), "policy": .string(info.policy), "dimension": .string(info.dimension),
            "retryAfterSeconds": .int(info.retryAfterSeconds ?? -1),
        ])
        var headers = reply.rateLimitHeaders
        headers.set("Cache-Control", "no-store")
        return RelayedAnswer(status: reply.status, responseHeaders: headers, responseBody: reply.body)
    }

    /// Modgud's JSON answer with its status, for endpoints whose answer
    /// holds nothing the gateway must keep (the uniform 200s, problem
    /// details, name-required 400s). 5xx, and a refusal of the gateway's
    /// own credentials, become 502.
    public func relay(_ reply: ModgudReply, endpoint: String, context: RequestContext) -> HTTPResponse {
        if let failure = gatewayFailure(reply, endpoint: endpoint, context: context) { return failure }
        var headers = HTTPHeaders()
        headers.add("Content-Type", reply.headers["Content-Type"] ?? "application/json")
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: reply.status, headers: headers, bytes: reply.body)
    }

    /// An OAuth error from `/connect/token` or a Bearer endpoint, reduced to
    /// `error` and `error_description` (and `max_age`) so nothing else in
    /// Modgud's body can leak through. Only a Bearer challenge goes along
    /// (a step-up `401`): Modgud refusing the gateway's own credentials
    /// (`invalid_client`, with a Basic challenge a browser would answer with
    /// its password prompt) is the gateway's failure, a `502`.
    public func oauthError(_ reply: ModgudReply, endpoint: String, context: RequestContext) -> HTTPResponse {
        if let failure = gatewayFailure(reply, endpoint: endpoint, context: context) { return failure }
        let json = reply.json
        var pairs: [(String, JSON)] = [("error", .string(reply.oauthError ?? reply.problemTitle ?? "request_refused"))]
        if let description = json?.value(forKeyIgnoringCase: "error_description")?.stringValue
            ?? json?.value(forKeyIgnoringCase: "detail")?.stringValue {
            pairs.append(("error_description", .string(description)))
        }
        if let maxAge = json?.value(forKeyIgnoringCase: "max_age")?.intValue { pairs.append(("max_age", .int(Int64(maxAge)))) }
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
        if let challenge = reply.headers["WWW-Authenticate"], challenge.utf8.starts(with: "Bearer ".utf8) {
            headers.add("WWW-Authenticate", challenge)
        }
        return HTTPResponse(status: reply.status, headers: headers, bytes: JSON.makeObject(pairs).serialized)
    }

    /// The answer for a reply the browser had no part in: Modgud's 429
    /// (relayed as it is), its 5xx, or its refusal of the gateway as a
    /// client, which is logged as an error: `invalid_client` (a rotated
    /// secret, a disabled client) or a forwarded address Modgud will not
    /// take from it (`Auth.ForwarderNotTrusted`, `Auth.ForwardedAddressRequired`:
    /// the client lacks `cap:trusted-forwarder`, or its credentials failed).
    /// Nil for any other reply.
    private func gatewayFailure(_ reply: ModgudReply, endpoint: String, context: RequestContext) -> HTTPResponse? {
        if reply.isRateLimited { return rateLimitedResponse(reply, endpoint: endpoint, context: context) }
        if reply.status.code >= 500 { return upstreamError(reply.status.code, endpoint: endpoint, context: context) }
        guard let reason = reply.oauthError == "invalid_client" ? "invalid_client" : reply.problemTitle,
              reason == "invalid_client" || Self.forwarderProblems.contains(reason) else { return nil }
        context.logger.error("modgud.client_refused", ["endpoint": .string(endpoint), "reason": .string(reason)])
        return GatewayError(.badGateway, "upstream_error", "The identity server refused the gateway's client credentials.").response
    }

    /// A failure to get an answer at all.
    public func failure(_ error: any Error, endpoint: String, context: RequestContext) -> GatewayError {
        switch error as? ModgudFailure ?? .unreachable {
        case .timedOut(let sent):
            context.logger.warning("modgud.timeout", ["endpoint": .string(endpoint), "outcomeUnknown": .bool(sent)])
            return GatewayError(.gatewayTimeout, "upstream_timeout", "The identity server did not answer in time.")
        case .unreachable, .badResponse, .broken:
            context.logger.warning("modgud.unreachable", ["endpoint": .string(endpoint), "outcomeUnknown": .bool(error as? ModgudFailure == .broken)])
            return GatewayError(.badGateway, "upstream_error", "The identity server could not be reached.")
        }
    }

    func upstreamError(_ status: Int, endpoint: String, context: RequestContext) -> HTTPResponse {
        context.logger.warning("modgud.server_error", ["endpoint": .string(endpoint), "status": .int(status)])
        return GatewayError(.badGateway, "upstream_error", "The identity server failed to answer.").response
    }

    private static let forwarderProblems: Set<String> = ["Auth.ForwarderNotTrusted", "Auth.ForwardedAddressRequired"]

    /// Metric labels stay within a small alphabet whatever Modgud sends.
    static func label(_ text: String) -> String {
        ModgudReply.label(text)
    }
}
