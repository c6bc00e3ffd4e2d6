import Core
import HTTP
@testable import ModgudSimulator
import TestSupport

/// A browser at the simulator's verification page, over real sockets: it
/// keeps the `sim_session` cookie and follows the sign-in detour.
struct DeviceBrowser {
    let sim: SimHarness
    var cookie: String?

    init(_ sim: SimHarness) { self.sim = sim }

    mutating func get(_ target: String) async throws -> RawResponse {
        keep(try await sim.get(target, headers: cookieHeader))
    }

    mutating func post(_ target: String, _ pairs: [(String, String)]) async throws -> RawResponse {
        keep(try await sim.postForm(target, pairs, headers: cookieHeader))
    }

    /// Posts the verification form shown in `page`: its hidden fields (the
    /// anti-forgery value) unless `withoutHidden`, plus the code and action.
    mutating func verify(_ page: RawResponse, userCode: String, action: String,
                         withoutHidden: Bool = false) async throws -> RawResponse {
        let hidden = withoutHidden ? [] : SignInPageClient.hiddenFields(page.bodyText)
        return try await post("/connect/verify", hidden + [("user_code", userCode), ("action", action)])
    }

    /// Opens `/connect/verify` (plus `query`), signs in on the way as
    /// `email`, and returns the verification page it comes back to.
    mutating func signedInPage(_ email: String = "ada@example.com", query: String = "") async throws -> RawResponse {
        let detour = try await get("/connect/verify" + query)
        guard detour.status == 302, let signIn = detour.header("Location") else {
            throw HarnessError.status(detour.status, detour.bodyText)
        }
        let form = try await get(signIn)
        let back = try await post("/connect/signin", SignInPageClient.hiddenFields(form.bodyText)
                                                      + [("email", email), ("password", "simulator")])
        guard back.status == 302, let location = back.header("Location") else { throw HarnessError.status(back.status, back.bodyText) }
        return try await get(location)
    }

    private var cookieHeader: [(String, String)] { cookie.map { [("Cookie", "sim_session=\($0)")] } ?? [] }

    private mutating func keep(_ response: RawResponse) -> RawResponse {
        if let set = response.header("Set-Cookie"), set.hasPrefix("sim_session=") {
            cookie = String(set.dropFirst("sim_session=".count).prefix { $0 != ";" })
        }
        return response
    }
}
