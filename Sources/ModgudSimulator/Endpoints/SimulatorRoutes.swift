import HTTP
import Routing

/// The simulator's routes: Modgud's endpoints, and `/dev/*` (each of
/// which answers 404 while the dev endpoints are off).
extension SimulatorCore {
    func routes() -> Router {
        var routes = RouterBuilder()
        func add(_ methods: [HTTPMethod], _ pattern: String, _ handler: @escaping SimulatorEndpoint.Handler) {
            // No body limit of the router's: an endpoint reads up to
            // `Exchange.bodyLimit` and answers a larger body itself.
            routes.add(methods, pattern, options: RouteOptions(maxBodyBytes: .max, csrf: false),
                       responder: SimulatorEndpoint(core: self, handler: handler))
        }
        func dev(_ methods: [HTTPMethod], _ pattern: String, _ handler: @escaping SimulatorEndpoint.Handler) {
            add(methods, pattern) { exchange, config in
                config.devEndpoints ? await handler(&exchange, config) : Reply.notFound()
            }
        }
        add([.get], "/healthz") { _, _ in Reply.json(.ok, ["status": "ok"]) }
        add([.get], "/.well-known/openid-configuration") { [self] _, config in discovery(config: config) }
        add([.get], "/.well-known/jwks") { [self] _, _ in jwks() }
        add([.get], "/api/app-info") { [self] _, config in appInfo(config: config) }
        add([.post], "/api/account/native/otp/request") { [self] in await accountRequest(&$0, .otp, config: $1) }
        add([.post], "/api/account/native/register") { [self] in await accountRequest(&$0, .register, config: $1) }
        add([.post], "/api/account/magic-link/request") { [self] in await accountRequest(&$0, .magicLink, config: $1) }
        add([.post], "/connect/token") { [self] in await token(&$0, config: $1) }
        add([.get, .post], "/connect/authorize") { [self] in await authorize(&$0, config: $1) }
        add([.post], "/connect/par") { [self] in await pushAuthorization(&$0, config: $1) }
        add([.post], Self.deviceAuthorizationPath) { [self] in await deviceAuthorization(&$0, config: $1) }
        add([.get, .post], Self.verificationPath) { [self] exchange, _ in await verificationPage(&exchange) }
        add([.get, .post], Self.signInPath) { [self] exchange, _ in await signInPage(&exchange) }
        add([.get, .post], "/connect/userinfo") { [self] exchange, _ in userinfo(&exchange) }
        add([.post], "/connect/revoke") { [self] in await revoke(&$0, config: $1) }
        add([.post], "/connect/introspect") { [self] in await introspect(&$0, config: $1) }
        add([.get, .post], "/connect/logout") { [self] in await logout(&$0, config: $1) }
        add([.post], "/connect/passkey/begin") { [self] in await passkeyBegin(&$0, config: $1) }
        add([.post], "/connect/passkey/enroll/begin") { [self] in await enrollBegin(&$0, config: $1) }
        add([.post], "/connect/passkey/enroll") { [self] in await enroll(&$0, config: $1) }
        add([.get], "/connect/passkey") { [self] in listPasskeys(&$0, config: $1) }
        add([.delete], "/connect/passkey/{id}") { [self] exchange, config in
            deletePasskey(&exchange, id: exchange.parameters["id"] ?? "", config: config)
        }
        dev([.get], "/dev") { [self] _, _ in devIndex() }
        dev([.get], "/dev/mailbox") { [self] exchange, _ in mailboxEndpoint(exchange) }
        dev([.get], "/dev/requests") { [self] exchange, _ in requestsEndpoint(exchange) }
        dev([.post], "/dev/reset") { [self] exchange, _ in await reset(&exchange) }
        dev([.get], "/dev/stats") { [self] _, _ in statsEndpoint() }
        dev([.get], "/dev/users") { [self] exchange, _ in userEndpoint(exchange.queryValue("email")) }
        dev([.post], "/dev/users") { [self] exchange, _ in await createUser(&exchange) }
        dev([.post], "/dev/users/signout") { [self] exchange, config in await signOutUser(&exchange, config: config) }
        dev([.post], "/dev/users/disable") { [self] exchange, config in await disableUser(&exchange, config: config) }
        dev([.get], "/dev/keys") { [self] _, _ in Reply.json(.ok, state.signingKey.json) }
        dev([.post], "/dev/keys/rotate") { [self] exchange, _ in await rotateKeys(&exchange) }
        dev([.post], "/dev/keys/publish") { [self] _, _ in
            state.signingKey.publishCurrent()
            return Reply.json(.ok, state.signingKey.json)
        }
        dev([.get], "/dev/backchannel") { [self] _, _ in
            Reply.json(.ok, ["attempts": .array(state.backchannel.attempts.map(\.json))])
        }
        dev([.post], "/dev/device") { [self] exchange, _ in await decideDevice(&exchange) }
        dev([.get], "/dev/totp") { [self] exchange, _ in totpEndpoint(exchange.queryValue("email")) }
        dev([.get], "/dev/config") { [self] _, _ in Reply.json(.ok, state.config.json) }
        dev([.post], "/dev/config") { [self] exchange, _ in await changeConfig(&exchange) }
        dev([.get], "/dev/faults") { [self] _, _ in Reply.json(.ok, ["faults": .array(state.faults.armed.map(\.json))]) }
        dev([.post], "/dev/faults") { [self] exchange, _ in await armFaults(&exchange) }
        dev([.get], "/dev/clock") { [self] _, _ in clockAnswer() }
        dev([.post], "/dev/clock") { [self] exchange, _ in await advanceClock(&exchange) }
        return routes.build()
    }
}

/// One simulator endpoint as a route's responder: `SimulatorCore.serve`
/// (faults, Modgud's CSRF gate, the request record) around its handler.
struct SimulatorEndpoint: Responder {
    typealias Handler = @Sendable (inout Exchange, SimulatorConfig) async -> HTTPResponse

    let core: SimulatorCore
    let handler: Handler

    func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        await core.serve(request, route: context.routePattern, parameters: context.parameters, handler)
    }
}

/// Answers what no route serves as Modgud does (a problem 404; a 405
/// with `Allow` and no body), recorded as any other request.
struct UnmatchedAnswers: Middleware {
    let core: SimulatorCore

    func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {
        guard case .failure(let error) = outcome else { return }
        outcome = .success(core.unmatched(request, error))
    }
}
