import Core
import HTTP

/// `POST /connect/device` (RFC 8628 §3.1–3.2): a client starts a device
/// authorization and gets a device code to poll `/connect/token` with and
/// a user code for the person to type at `/connect/verify`.
extension SimulatorCore {
    static let deviceAuthorizationPath = "/connect/device"
    static let verificationPath = "/connect/verify"

    /// Admits the client as `/connect/token` does (authentication, the
    /// forwarder rules, the `oauth-token` limit), then checks its grant and
    /// `resource`s and answers `{"device_code","user_code",
    /// "verification_uri","verification_uri_complete","expires_in","interval"}`.
    func deviceAuthorization(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        guard let form = await exchange.form() else {
            return Reply.oauth("invalid_request", "The device authorization request must be an application/x-www-form-urlencoded POST.")
        }
        let client: ClientRegistration
        switch admitClient(&exchange, form: form, config: config) {
        case .success(let admitted): client = admitted.client
        case .failure(let refusal): return refusal.response
        }
        guard client.holds(GrantType.deviceCode) else {
            return Reply.oauth("unauthorized_client", "This client application is not allowed to use the device authorization grant.")
        }
        let resources = form.all("resource")
        for resource in resources where !Self.resourceAllowed(resource, client: client) {
            return Reply.oauth("invalid_target", "The specified resource is not allowed for this client application.")
        }
        let realm = config.realm, now = state.now()
        let (deviceCode, record) = state.identity.withLock { store in
            defer { store.noteOperation(now: now) }
            return store.deviceAuthorizations.start(
                clientId: client.id, scopes: Self.scopes(form.first("scope")), resources: resources,
                lifetime: realm.deviceCodeLifetimeSeconds, interval: realm.deviceCodeIntervalSeconds, now: now)
        }
        state.stats.count("device", "started")
        let verification = state.issuer + Self.verificationPath
        return Reply.json(.ok, [
            "device_code": .string(deviceCode),
            "user_code": .string(record.userCode),
            "verification_uri": .string(verification),
            "verification_uri_complete": .string(Self.appendQuery(verification, [("user_code", record.userCode)])),
            "expires_in": .int(Int64(realm.deviceCodeLifetimeSeconds)),
            "interval": .int(Int64(record.interval)),
        ], noStore: true)
    }
}
