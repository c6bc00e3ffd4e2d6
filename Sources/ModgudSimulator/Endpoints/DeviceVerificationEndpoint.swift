import Core
import Crypto
import HTTP

/// `GET/POST /connect/verify` (RFC 8628 §3.3): a signed-in person types the
/// code a device shows and approves or denies it. A browser without the
/// simulator's sign-in goes to `/connect/signin` and comes back here.
extension SimulatorCore {
    func verificationPage(_ exchange: inout Exchange) async -> HTTPResponse {
        let isPost = exchange.method == .post
        let form = isPost ? (await exchange.form() ?? []) : []
        let typed = isPost ? form.first("user_code") : exchange.queryValue("user_code")
        guard let session = browserSession(exchange) else {
            // A typed code is not moved into a URL; one that came in the
            // query (verification_uri_complete) is kept for the way back.
            let back = Self.appendQuery(Self.verificationPath, [("user_code", isPost ? nil : typed?.nilIfEmpty)])
            return Reply.redirect(Self.appendQuery(Self.signInPath, [("return_to", back)]))
        }
        func page(_ status: HTTPStatus, _ notice: String?) -> HTTPResponse {
            Reply.html(status, DevicePage.form(userCode: typed, antiForgery: session.formToken, notice: notice))
        }
        guard isPost else { return page(.ok, nil) }
        guard let token = form.first(DevicePage.antiForgeryField),
              constantTimeEquals(Array(token.utf8), Array(session.formToken.utf8)) else {
            state.stats.count("device", "forgeryRefused")
            return page(.forbidden, "The form could not be verified. Please try again.")
        }
        let approve: Bool
        switch form.first("action") {
        case "approve": approve = true
        case "deny": approve = false
        default: return page(.badRequest, "Choose Approve or Deny.")
        }
        let now = state.now()
        let decision: DeviceAuthorization.Decision = approve
            ? .approved(DeviceApproval(userId: session.userId, proof: session.proof, sid: Identifiers.guid())) : .denied
        guard state.identity.withLock({ $0.deviceAuthorizations.decide(userCode: typed ?? "", decision, now: now) }) else {
            state.stats.count("device", "wrongCode")
            return page(.ok, "That code is not valid or has expired. Check the code on your device.")
        }
        state.stats.count("device", approve ? "approved" : "denied")
        return Reply.html(.ok, approve
            ? SignInPage.message("Device approved", "The device is signed in. You can return to it now.")
            : SignInPage.message("Request denied", "Nothing was signed in."))
    }
}
