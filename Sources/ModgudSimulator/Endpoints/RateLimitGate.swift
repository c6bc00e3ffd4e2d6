import Core
import HTTP

extension SimulatorCore {
    /// Spends one request of `policy`; the 429 to answer when refused. In
    /// log-only mode a would-be refusal is logged and counted, and the
    /// request goes on.
    func rateLimit(_ policy: String, keys: RateLimitKeys, _ exchange: inout Exchange, config: SimulatorConfig) -> HTTPResponse? {
        guard let rejection = state.limiter.check(policy, keys: keys, settings: config.rateLimits, now: state.now())
        else { return nil }
        // Like Modgud: would-be rejections in log-only mode at warning; real
        // ones are counted (GET /dev/stats) and logged only at debug, so a
        // load test does not drown the log.
        state.logger.log(rejection.enforced ? .debug : .warning, "ratelimit.rejected", [
            "policy": .string(rejection.policy), "dimension": .string(rejection.dimension.rawValue),
            "retryAfter": .int(rejection.retryAfterSeconds), "enforced": .bool(rejection.enforced),
        ])
        guard rejection.enforced else { return nil }
        exchange.record.rateLimited = "\(rejection.policy)/\(rejection.dimension.rawValue)"
        return Self.tooManyRequests(rejection, switches: config.responses)
    }

    /// The 429 contract: `Retry-After` in whole seconds and
    /// `{"error":"rate_limited","policy","dimension","retryAfterSeconds"}`.
    static func tooManyRequests(_ rejection: RateLimitRejection, switches: ResponseSwitches) -> HTTPResponse {
        let pascal = switches.pascalCase429
        let body: JSON = [
            pascal ? "Error" : "error": "rate_limited",
            pascal ? "Policy" : "policy": .string(rejection.policy),
            pascal ? "Dimension" : "dimension": .string(rejection.dimension.rawValue),
            pascal ? "RetryAfterSeconds" : "retryAfterSeconds": .int(Int64(rejection.retryAfterSeconds)),
        ]
        var headers = HTTPHeaders()
        headers.set("Retry-After", String(rejection.retryAfterSeconds))
        if switches.rateLimitHeaders {
            headers.set("RateLimit-Limit", String(rejection.limit))
            headers.set("RateLimit-Remaining", "0")
            headers.set("RateLimit-Reset", String(rejection.retryAfterSeconds))
        }
        return Reply.json(.tooManyRequests, body, headers: headers, contentType: "application/json")
    }

    /// The keys of one request for the dimensions that apply.
    func keys(source: CallerSource, target: String?, client: String?, config: SimulatorConfig) -> RateLimitKeys {
        RateLimitKeys(source: source.key, target: target.map(IdentityStore.normalize), client: client,
                      app: config.realm.appName, sourceAllowlisted: source.allowlisted)
    }

    /// Waits out the anti-enumeration jitter (on the task, never the loop thread).
    func jitter(min: Int, max: Int) async {
        guard max > 0 else { return }
        let milliseconds = Identifiers.jitter(Swift.min(min, max)...max)
        if milliseconds > 0 { try? await Task.sleep(for: .milliseconds(milliseconds)) }
    }
}
