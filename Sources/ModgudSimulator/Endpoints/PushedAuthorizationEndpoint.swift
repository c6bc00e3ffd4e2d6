import Core
import HTTP

/// `POST /connect/par` (RFC 9126): a confidential client pushes the
/// authorization request's parameters and gets a `request_uri` for
/// `/connect/authorize` (single use, 60 seconds, bound to that client).
extension SimulatorCore {
    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"
    static let pushedRequestLifetime = 60

    func pushAuthorization(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        guard config.realm.par else { return Reply.notFound() }
        guard let form = await exchange.form() else {
            return Reply.oauth("invalid_request", "The pushed authorization request must be form-encoded.")
        }
        let client: ClientRegistration
        switch CallerContext.authenticate(exchange.request.headers, form: form, config: config) {
        case .failed(let description, let basic):
            return Reply.invalidClient(description, basicAttempted: basic)
        case .anonymous:
            return Reply.invalidClient("Client authentication is required.", basicAttempted: false)
        case .authenticated(let authenticated, let method):
            exchange.record.clientId = authenticated.id
            exchange.record.clientAuth = method.rawValue
            guard method != .publicClient else {
                return Reply.invalidClient("Client authentication is required.", basicAttempted: false)
            }
            client = authenticated
        }
        guard form.first("request_uri") == nil else {
            return Reply.oauth("invalid_request", "The 'request_uri' parameter is not allowed in a pushed authorization request.")
        }
        if let named = form.first("client_id"), named != client.id {
            return Reply.oauth("invalid_request", "The 'client_id' parameter does not match the authenticated client.")
        }
        let parameters = form.filter { !["client_secret", "client_assertion", "client_assertion_type"].contains($0.name) }
            .filter { $0.name != "client_id" } + [("client_id", client.id)]
        if case .failure(let refusal) = AuthorizeRequest.validate(parameters, config: config) {
            return Reply.oauth(refusal.error, refusal.description)
        }
        let uri = Self.requestURIPrefix + Identifiers.token()
        let now = state.now()
        state.identity.withLock { store in
            store.pushedRequests[uri] = PushedRequest(clientId: client.id, parameters: parameters,
                                                      expiresAt: now + Double(Self.pushedRequestLifetime))
            store.noteOperation(now: now)
        }
        state.stats.count("par", "pushed")
        return Reply.json(.created, ["request_uri": .string(uri), "expires_in": .int(Int64(Self.pushedRequestLifetime))],
                          noStore: true)
    }
}
