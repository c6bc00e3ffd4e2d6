import Core
import Routing

/// Every sign-in and session endpoint (Docs/openapi.yaml), registered together.
/// Each group is a small service of its own; this only maps the routes.
struct SignInEndpoints: Sendable {
    let shared: SignInContext
    let refresher: RefreshCoordinator
    let capabilities: JSON
    let codeFlow: CodeFlowSettings
    /// The user's sessions (`GET /bff/sessions`, `DELETE /bff/sessions/{id}`,
    /// logout everywhere).
    var sessionList: SessionListEndpoints?
    /// The native app hand-off (`/bff/app-login/*`); nil or no app: not served.
    var appLogin: AppLoginSettings?
    /// The cross-device sign-in (`/bff/cross-device/*`), when configured.
    var crossDevice: CrossDeviceSettings?

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        let narrows = refresher.settings.defaultResource != nil && shared.modgud.configuration.resources.count > 1
        let completion = SignInCompletion(shared: shared, revoker: refresher.revoker, narrowsDefaultToken: narrows,
                                          metrics: codeFlow.metrics)
        CodeRequestEndpoints(shared: shared).register(in: &router, options: options)
        RedeemEndpoints(shared: shared, completion: completion).register(in: &router, options: options)
        SessionEndpoints(shared: shared, appInfo: AppInfoCache(modgud: shared.modgud), capabilities: capabilities)
            .register(in: &router, options: options)
        AccountEndpoints(shared: shared, refresher: refresher, sessionList: sessionList,
                         postLogoutRedirect: codeFlow.postLogoutRedirect).register(in: &router, options: options)
        sessionList?.register(in: &router, options: options)
        CodeFlowEndpoints(shared: shared, completion: completion, settings: codeFlow).register(in: &router, options: options)
        if let appLogin { AppLoginEndpoints(shared: shared, refresher: refresher, settings: appLogin).register(in: &router, options: options) }
        crossDevice.map { CrossDeviceEndpoints(shared: shared, completion: completion, settings: $0).register(in: &router, options: options) }
    }
}
