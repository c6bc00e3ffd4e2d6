import Core
import HTTP
import Routing

/// Writes `audit.ratelimited` for every 429 a `/bff/` request gets:
/// Modgud's, passed through (`source` `modgud`), and the gateway's own
/// (`source` `gateway`: its rate limits, the per-address cap), with the
/// `policy` and `dimension` the answer names. A stage inside the error
/// stage, so the gateway's refusals are still errors here; any other
/// answer costs one comparison of its status.
struct RateLimitAudit: Middleware {
    let audit: AuditTrail
    let addresses: ClientAddressResolver

    func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {
        let source: String, body: [UInt8]
        switch outcome {
        case .success(let response):
            guard response.status == .tooManyRequests, case .bytes(let bytes) = response.body else { return }
            (source, body) = ("modgud", bytes)
        case .failure(let error):
            guard let refusal = error as? any HTTPResponseError, refusal.status == .tooManyRequests else { return }
            (source, body) = (refusal is RelayedAnswer ? "modgud" : "gateway", refusal.responseBody)
        }
        guard context.routePattern.hasPrefix("/bff/") else { return }
        let json = try? JSON.parse(body)
        let policy = json?.value(forKeyIgnoringCase: "policy")?.stringValue
            ?? (json?["error"]?.stringValue == "too_many_requests" ? "max_connections_per_address" : "unknown")
        let dimension = json?.value(forKeyIgnoringCase: "dimension")?.stringValue ?? "source"
        let address = addresses.clientAddress(of: request)
        audit.record("audit.ratelimited", context, address: address, [
            ("source", .string(source)), ("policy", .string(ModgudRelay.label(policy))),
            ("dimension", .string(ModgudRelay.label(dimension))), ("route", .string(context.routePattern)),
        ])
    }
}
