import Core
import HTTP

/// `POST /dev/device {"userCode","email","action":"approve"|"deny"}`: what
/// the verification page does, as that user and without a browser.
extension SimulatorCore {
    func decideDevice(_ exchange: inout Exchange) async -> HTTPResponse {
        let body = await exchange.json()
        func text(_ key: String) -> String? { body?.value(forKeyIgnoringCase: key)?.stringValue }
        guard let userCode = text("userCode"), let email = text("email"), let action = text("action"),
              action == "approve" || action == "deny" else {
            return Reply.json(.badRequest, ["error": "invalid_request", "error_description":
                #"The body must be {"userCode","email","action":"approve"|"deny"}."#])
        }
        let now = state.now()
        enum Outcome { case noUser, noCode, decided }
        let outcome = state.identity.withLock { store -> Outcome in
            guard let user = store.user(email: email) else { return .noUser }
            let decision: DeviceAuthorization.Decision = action == "approve"
                ? .approved(DeviceApproval(userId: user.id, proof: SignInProof(authTime: now, amr: ["pwd"], multi: false),
                                           sid: Identifiers.guid()))
                : .denied
            return store.deviceAuthorizations.decide(userCode: userCode, decision, now: now) ? .decided : .noCode
        }
        switch outcome {
        case .noUser:
            return Self.noSuchUser
        case .noCode:
            return Reply.json(.notFound, ["error": "no_such_code", "error_description":
                "No device authorization waits for that user code (unknown, expired or decided)."])
        case .decided:
            state.stats.count("device", action == "approve" ? "approved" : "denied")
            return Reply.json(.ok, ["status": .string(action == "approve" ? "approved" : "denied")])
        }
    }
}
