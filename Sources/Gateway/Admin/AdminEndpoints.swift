import Core
import HTTP
import Observability
import Routing

/// The admin listener's routes: liveness, readiness and metrics. They are
/// served on a separate address (BFF_ADMIN_LISTEN) that should not be
/// reachable from browsers.
public struct AdminEndpoints: Sendable {
    let checks: [any ReadinessCheck]
    let metrics: MetricsRegistry
    /// Called before rendering, to copy counters kept elsewhere (the HTTP
    /// servers' connection counts) into the registry.
    let beforeScrape: @Sendable () -> Void

    public init(checks: [any ReadinessCheck], metrics: MetricsRegistry, beforeScrape: @escaping @Sendable () -> Void = {}) {
        self.checks = checks
        self.metrics = metrics
        self.beforeScrape = beforeScrape
    }

    public func register(in router: inout RouterBuilder) {
        let alive = HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                                 bytes: JSON.object(["status": "ok"]).serialized)
        // Liveness and metrics need nothing outside the process: answered
        // on the loop thread as they arrive, with no task.
        router.addImmediate(.get, "/healthz") { _, _ in alive }
        router.add(.get, "/readyz") { _, _ in await readiness() }
        router.addImmediate(.get, "/metrics") { _, _ in
            beforeScrape()
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                                bytes: Array(metrics.render().utf8))
        }
    }

    /// 200 when every check passes, else 503 naming the failures.
    func readiness() async -> HTTPResponse {
        var results = JSONObject()
        var ready = true
        for check in checks {
            let failure = await check.check()
            if failure != nil { ready = false }
            results[check.name] = .string(failure ?? "ok")
        }
        let body: JSON = ["status": .string(ready ? "ready" : "not_ready"), "checks": .object(results)]
        return HTTPResponse(status: ready ? .ok : .serviceUnavailable,
                            headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], bytes: body.serialized)
    }
}
