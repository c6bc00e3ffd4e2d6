import Core
import HTTP

/// `GET/POST /connect/signin?return_to=<path>`: the sign-in page on its
/// own, for the simulator's pages that need a signed-in browser (the
/// device verification page sends a visitor without `sim_session` here).
/// The same form and steps as in the code flow (password, then TOTP for a
/// user who has it); a browser already signed in, or one that has just
/// signed in, is sent back to `return_to` with its `sim_session` cookie.
extension SimulatorCore {
    static let signInPath = "/connect/signin"

    func signInPage(_ exchange: inout Exchange) async -> HTTPResponse {
        let raw = exchange.method == .post ? (await exchange.form() ?? []) : exchange.query
        guard let returnTo = raw.first("return_to"), Self.isLocalPath(returnTo) else {
            return Reply.html(.badRequest, SignInPage.message(
                "Bad sign-in request", "return_to must be a path on this server."))
        }
        let keep = [(name: "return_to", value: returnTo)]
        let now = state.now()
        let outcome: BrowserSignIn
        if let pending = raw.first("sim_pending") {
            outcome = passwordSecondFactor(pending, totp: raw.first("totp_code") ?? "", keep: keep, action: Self.signInPath,
                                           now: now)
        } else if exchange.method == .post, let email = raw.first("email") {
            outcome = passwordStep(email: email, password: raw.first("password") ?? "", keep: keep, action: Self.signInPath,
                                   now: now)
        } else if browserSession(exchange) != nil {
            return Reply.redirect(returnTo)
        } else {
            return Reply.html(.ok, SignInPage.password(keep: keep, email: nil, action: Self.signInPath, notice: nil))
        }
        switch outcome {
        case .answer(let page):
            return page
        case .refused(_, let description):
            return Reply.html(.ok, SignInPage.message("Sign-in failed", description))
        case .signedIn(_, let cookie):
            var response = Reply.redirect(returnTo)
            if let cookie { response.headers.add("Set-Cookie", sessionCookieHeader(cookie)) }
            return response
        }
    }

    /// A path on this server (`/…`), never another origin (`//host`,
    /// `/\host`) and nothing a header could be split with.
    static func isLocalPath(_ target: String) -> Bool {
        let bytes = Array(target.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") { return false }
        return !bytes.contains { $0 == UInt8(ascii: "\\") || $0 <= 0x20 || $0 == 0x7F }
    }
}
