import Core
import HTTP
import Modgud
import Routing
import Sessions

/// `GET /bff/user`, `GET /bff/app-info`, `GET /bff/capabilities` (the
/// configured methods and features narrowed by Modgud's policy, `Capabilities`).
struct SessionEndpoints: Sendable {
    let shared: SignInContext
    let appInfo: AppInfoCache
    let capabilities: JSON

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        router.add(.get, "/bff/user", options: options) { request, context in
            guard let session = try await shared.sessions.live(request, context) else {
                throw shared.sessions.unauthenticated(request)
            }
            return .json(.ok, UserView.body(session))
        }
        router.add(.get, "/bff/app-info", options: options) { _, context in
            do {
                let (reply, _) = try await appInfo.current()
                return shared.relay.relay(reply, endpoint: "app_info", context: context)
            } catch {
                throw shared.relay.failure(error, endpoint: "app_info", context: context)
            }
        }
        router.add(.get, "/bff/capabilities", options: options) { _, _ in
            // Modgud's policy from the app-info cache (fetched when it holds none).
            let reply = try? await appInfo.current().reply
            return .json(.ok, Capabilities.merge(capabilities, appInfo: reply?.isSuccess == true ? reply?.json : nil,
                                                 backchannelLogout: shared.modgud.endpoints.backchannelLogoutSupported))
        }
    }
}
