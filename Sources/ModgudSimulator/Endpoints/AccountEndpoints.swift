import Core
import HTTP

/// The anonymous, uniform `/api/account/*` endpoints: request a code,
/// register explicitly, request a magic link.
extension SimulatorCore {
    enum AccountRequest {
        case otp, register, magicLink

        var policy: String {
            self == .magicLink ? RateLimitPolicyName.magicLink : RateLimitPolicyName.nativeOtp
        }

        var uniformMessage: String {
            self == .magicLink
                ? "If your email is registered, you will receive a sign-in link."
                : "If your email is registered, you will receive a verification code."
        }
    }

    func accountRequest(_ exchange: inout Exchange, _ kind: AccountRequest, config: SimulatorConfig) async -> HTTPResponse {
        let client = CallerContext.basicClient(exchange.request.headers, config: config)
        exchange.record.clientId = client?.id
        exchange.record.clientAuth = client == nil ? "none" : "basic"
        let source: CallerSource
        switch CallerContext.source(exchange, basicClient: client, rateLimited: true, config: config) {
        case .success(let resolved): source = resolved
        case .failure(let refusal): return refusal.response
        }
        guard let json = await exchange.json(), case .object = json else {
            return Reply.problem(.badRequest, title: "Request.Invalid", detail: "The body must be a JSON object.")
        }
        var fields: [String: String] = [:]
        for name in ["Email", "FirstName", "LastName", "InviteCode"] {
            guard let value = json.value(forKeyIgnoringCase: name), !value.isNull else { continue }
            guard let text = value.stringValue else {
                return Reply.problem(.badRequest, title: "Request.Invalid", detail: "\(name) must be a string.")
            }
            fields[name] = text
        }
        let email = fields["Email"]?.trimmingSpaces ?? ""
        let keys = keys(source: source, target: email.isEmpty ? nil : email, client: client?.id, config: config)
        if let refusal = rateLimit(kind.policy, keys: keys, &exchange, config: config) { return refusal }

        if kind != .magicLink {
            guard config.realm.nativeGrants else {
                return Reply.problem(.badRequest, title: "NativeGrants.Disabled",
                                     detail: "Native passwordless sign-in is not enabled for this realm.")
            }
            let names = config.realm.registrationFields
            if names.firstname == .required, fields["FirstName"]?.trimmingSpaces.isEmpty ?? true {
                return Reply.json(.badRequest, ["error": "Firstname is required."])
            }
            if names.lastname == .required, fields["LastName"]?.trimmingSpaces.isEmpty ?? true {
                return Reply.json(.badRequest, ["error": "Lastname is required."])
            }
        }
        if email.contains("@") {
            switch kind {
            case .otp: issueSignInCode(email: email, fields: fields, source: source, config: config)
            case .register: registerExplicitly(email: email, fields: fields, source: source, config: config)
            case .magicLink: issueMagicLink(email: email, config: config)
            }
        }
        await jitter(min: config.jitter.minMs, max: config.jitter.maxMs)
        return Reply.message(.ok, kind.uniformMessage)
    }

    /// The native OTP request's routing (known user → login code; unknown
    /// under JitOnOtp → pending registration + code; else nothing).
    private func issueSignInCode(email: String, fields: [String: String], source: CallerSource, config: SimulatorConfig) {
        let now = state.now()
        let posture = config.realm.selfRegistration
        let user = state.identity.withLock { $0.user(email: email) }
        if let user {
            let resend = !user.emailConfirmed && !user.hasPassword && posture == .jitOnOtp
            guard user.emailConfirmed || resend else { return }
            let code = state.identity.withLock { $0.issueCode(forUser: user.id, settings: config.tokens, now: now) }
            send(code: code, to: user.email, kind: resend ? "registration" : "otp", userId: user.id, config: config)
            return
        }
        guard posture == .jitOnOtp else { return }
        startRegistration(email: email, fields: fields, source: source, config: config)
    }

    /// `POST /api/account/native/register`: acts only under ExplicitEndpoint.
    private func registerExplicitly(email: String, fields: [String: String], source: CallerSource, config: SimulatorConfig) {
        guard config.realm.selfRegistration == .explicitEndpoint,
              state.identity.withLock({ $0.user(email: email) }) == nil else { return }
        startRegistration(email: email, fields: fields, source: source, config: config)
    }

    private func startRegistration(email: String, fields: [String: String], source: CallerSource, config: SimulatorConfig) {
        let now = state.now()
        guard source.allowlisted || state.limiter.allowsRegistration(RateLimitPolicyName.nativeOtp, source: source.key,
                                                                     settings: config.rateLimits, now: now)
        else {
            state.logger.info("registration.silenced", ["reason": "sign-ups per source"])
            return
        }
        let code = state.identity.withLock {
            $0.issueRegistration(email: email, firstName: fields["FirstName"], lastName: fields["LastName"],
                                 settings: config.tokens, now: now)
        }
        state.stats.count("registrations", "pending")
        send(code: code, to: email, kind: "registration", userId: nil, config: config)
    }

    private func issueMagicLink(email: String, config: SimulatorConfig) {
        let now = state.now()
        guard config.realm.magicLinkSelfService, let user = state.identity.withLock({ $0.user(email: email) }),
              user.emailConfirmed || !user.hasPassword
        else { return }
        let token = state.identity.withLock { $0.issueMagicLink(forUser: user.id, settings: config.tokens, now: now) }
        let page = config.magicLinkPage ?? state.issuer + "/magic-login"
        let link = "\(page)?userId=\(user.id)&token=\(FormURLEncoded.encode(token))"
        state.deliver(MailMessage(seq: 0, to: user.email, kind: "magic-link", subject: "Your sign-in link", code: nil,
                                  link: link, userId: user.id, token: token, sentAt: now), logMail: config.logMail)
    }

    private func send(code: String, to email: String, kind: String, userId: String?, config: SimulatorConfig) {
        let subject = kind == "registration" ? "Confirm your e-mail address" : "Your sign-in code"
        state.deliver(MailMessage(seq: 0, to: email, kind: kind, subject: subject, code: code, link: nil, userId: userId,
                                  token: nil, sentAt: state.now()), logMail: config.logMail)
    }
}
