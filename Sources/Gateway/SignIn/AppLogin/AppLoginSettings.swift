import Configuration
import Observability
import Routing

/// What the app hand-off needs beyond the shared sign-in context: the
/// configured apps, its times, the per-address limits and its counter.
struct AppLoginSettings: Sendable {
    let apps: [AppLoginApp]
    let times: AppLoginTimes
    /// BFF_APP_LOGIN_START_RATE; nil: off.
    let startLimit: AddressRateLimiter?
    /// BFF_APP_LOGIN_SESSION_RATE; nil: off.
    let sessionLimit: AddressRateLimiter?
    /// `bff_app_handoffs_total{step,outcome}`.
    let handoffs: Counter

    init(config: GatewayConfig, metrics: MetricsRegistry) {
        apps = config.apps
        times = config.appLoginTimes
        startLimit = config.appLoginStartRate.map { AddressRateLimiter(policy: "app-login-start", limit: $0) }
        sessionLimit = config.appLoginSessionRate.map { AddressRateLimiter(policy: "app-login-session", limit: $0) }
        handoffs = metrics.counter("bff_app_handoffs_total",
                                   help: "Native app hand-off steps (start, code, cancel, session, expiry) by outcome.",
                                   labels: ["step", "outcome"])
    }

    /// The app `start` names: the one configured when it names none and
    /// there is only one; else the one of that name.
    func app(named name: String?) throws -> AppLoginApp {
        if let name {
            guard let app = apps.first(where: { $0.name == name }) else {
                throw GatewayError.badRequest("app names no configured app.")
            }
            return app
        }
        guard apps.count == 1 else { throw GatewayError.badRequest("app is required: several apps are configured.") }
        return apps[0]
    }
}
