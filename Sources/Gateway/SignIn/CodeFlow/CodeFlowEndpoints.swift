import Routing

/// `GET /bff/login` and `GET /bff/callback`, the authorization-code flow
/// through Modgud's own pages. Browser navigations: no CSRF header is asked
/// for (the state bound to the flow cookie is the callback's defence).
/// Not registered when BFF_CODE_FLOW is false, so both answer 404.
struct CodeFlowEndpoints: Sendable {
    let shared: SignInContext
    let completion: SignInCompletion
    let settings: CodeFlowSettings

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        guard settings.enabled else { return }
        let navigation = RouteOptions(maxBodyBytes: options.maxBodyBytes, csrf: false)
        let login = LoginEndpoint(shared: shared, settings: settings)
        let callback = CallbackEndpoint(shared: shared, completion: completion, settings: settings, login: login)
        router.add(.get, "/bff/login", options: navigation) { request, context in
            await login.respond(request, context)
        }
        router.add(.get, "/bff/callback", options: navigation) { request, context in
            await callback.respond(request, context)
        }
    }
}
