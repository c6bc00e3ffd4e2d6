import Core
import HTTP
import Modgud
import Routing
import Sessions

/// The endpoints that end in a session: `/bff/otp/redeem`,
/// `/bff/magic/redeem`, `/bff/passkey/begin` + `/bff/passkey/redeem`, and
/// `/bff/mfa`. The grant is redeemed server-side; ceremony ids and
/// `mfa_token`s stay in the browser's sealed pre-sign-in record.
struct RedeemEndpoints: Sendable {
    let shared: SignInContext
    let completion: SignInCompletion

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        router.add(.post, "/bff/otp/redeem", options: options) { request, context in
            let input = try await JSONRequest.read(request, context: context)
            let grant = TokenGrant.otp(email: try input.email(), code: Secret(try input.digits("code", lengths: 4...12)),
                                       totpCode: try input.optionalDigits("totpCode").map(Secret.init))
            return try await completion.redeem(grant, request, context, endpoint: "otp_redeem")
        }
        router.add(.post, "/bff/magic/redeem", options: options) { request, context in
            let input = try await JSONRequest.read(request, context: context)
            let grant = TokenGrant.magic(userID: try input.string("userId", maxLength: 100),
                                         token: Secret(try input.string("token", maxLength: 2048)),
                                         totpCode: try input.optionalDigits("totpCode").map(Secret.init))
            return try await completion.redeem(grant, request, context, endpoint: "magic_redeem")
        }
        router.add(.post, "/bff/passkey/begin", options: options) { request, context in
            try await beginPasskey(request, context)
        }
        router.add(.post, "/bff/passkey/redeem", options: options) { request, context in
            let input = try await JSONRequest.read(request, context: context)
            let assertion = try input.objectField("assertion")
            let flow = try await takeFlow(request, context) { $0.grant == TokenGrant.passkeyType && $0.ceremonyID != nil }
            guard let ceremony = flow.ceremonyID else { throw Self.noFlow }
            return try await completion.redeem(.passkey(ceremonyID: ceremony, assertion: assertion.serializedString),
                                               request, context, endpoint: "passkey_redeem", taken: flow)
        }
        router.add(.post, "/bff/mfa", options: options) { request, context in
            let input = try await JSONRequest.read(request, context: context)
            let totp = Secret(try input.digits("totpCode"))
            let flow = try await takeFlow(request, context) { $0.mfaToken != nil }
            return try await completion.redeem(try Self.secondStep(flow, totp: totp), request, context, endpoint: "mfa",
                                               taken: flow)
        }
    }

    static let noFlow = GatewayError(.badRequest, "invalid_request",
                                     "No sign-in step is in progress for this browser; start again.")

    /// `POST /connect/passkey/begin`: the ceremony id goes into this
    /// browser's flow record, the WebAuthn options to the browser.
    private func beginPasskey(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let reply: ModgudReply
        do {
            reply = try await shared.modgud.beginPasskey(forwardedFor: shared.clientAddress(request))
        } catch {
            throw shared.relay.failure(error, endpoint: "passkey_begin", context: context)
        }
        guard reply.isSuccess else { return shared.relay.relay(reply, endpoint: "passkey_begin", context: context) }
        guard let json = reply.json, let ceremony = json.value(forKeyIgnoringCase: "ceremonyId")?.stringValue,
              let options = json.value(forKeyIgnoringCase: "options"), case .object = options else {
            throw shared.relay.failure(ModgudFailure.badResponse, endpoint: "passkey_begin", context: context)
        }
        let state = FlowState(grant: TokenGrant.passkeyType, ceremonyID: Secret(ceremony))
        let cookie = try await shared.store(context) { () async throws(SessionError) in
            try await shared.sessions.beginFlow(state, replacing: SignInContext.cookieHeader(request))
        }
        return .json(.ok, ["options": options], cookies: [cookie.revealed])
    }

    private func takeFlow(_ request: HTTPRequest, _ context: RequestContext,
                          where accepts: @escaping (FlowState) -> Bool) async throws -> FlowState {
        guard let flow = try await shared.takeFlow(request, context, where: accepts) else {
            throw shared.noFlow(Self.noFlow, request)
        }
        return flow
    }

    /// The grant that finishes a sign-in waiting for its second factor:
    /// the same grant type with Modgud's kept `mfa_token` and the code.
    static func secondStep(_ flow: FlowState, totp: Secret) throws -> TokenGrant {
        guard let mfaToken = flow.mfaToken else { throw noFlow }
        return .mfa(grantType: flow.grant, mfaToken: mfaToken, totpCode: totp)
    }
}
