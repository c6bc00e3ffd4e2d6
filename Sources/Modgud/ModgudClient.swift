import Core
import HTTPCodec
import HTTPClient
import Synchronization

/// Why a call to Modgud produced no answer to relay.
public enum ModgudFailure: Error, Sendable, Equatable {
    /// Connection refused, reset or TLS failure: nothing was processed.
    case unreachable
    /// The total time ran out. `requestSent`: the outcome is unknown.
    case timedOut(requestSent: Bool)
    /// The answer was larger than allowed or otherwise unusable.
    case badResponse
    /// The connection broke, or the call was cancelled, after the request
    /// may have reached Modgud: the outcome is unknown, as after a timeout.
    case broken
}

/// The gateway's client of Modgud. Calls made as the client carry HTTP
/// Basic authentication and, where Modgud rate-limits per source, the
/// browser's address in `Modgud-Forwarded-For`; revoke and introspect carry
/// Basic alone; calls made with the user's Bearer token carry no forwarded
/// address (Modgud honours it only with client authentication). No browser
/// header is ever copied onto a call. Every call carries a
/// `traceparent`: the trace of the request being served
/// (`TraceContext.current`) or, outside any request, a new one; the
/// parent id is a new span id per call.
///
/// Every call, whatever its answer or failure, is reported once to the
/// observer given at `init` (``ModgudCall``, ``ModgudCallOutcome``): the one
/// place the gateway counts its calls to Modgud.
public final class ModgudClient: Sendable {
    public let configuration: ModgudConfiguration
    private let http: HTTPClient
    private let endpointsState: Mutex<ModgudEndpoints>
    private let basic: Secret
    private let machineBasic: Secret?
    private let observer: @Sendable (ModgudCall, ModgudCallOutcome) -> Void

    /// A client of the Modgud at `configuration.baseURL`, calling through
    /// `http`; `observer` hears of every call as it ends.
    public init(configuration: ModgudConfiguration, http: HTTPClient,
                observer: @escaping @Sendable (ModgudCall, ModgudCallOutcome) -> Void = { _, _ in }) {
        self.configuration = configuration
        self.http = http
        self.observer = observer
        endpointsState = Mutex(ModgudEndpoints(base: configuration.baseURL))
        basic = ClientAuthentication.basic(id: configuration.clientID, secret: configuration.clientSecret)
        machineBasic = zip2(configuration.machineClientID, configuration.machineClientSecret).map {
            ClientAuthentication.basic(id: $0, secret: $1)
        }
    }

    public var endpoints: ModgudEndpoints { endpointsState.withLock { $0 } }

    /// Reads `/.well-known/openid-configuration` and adopts its endpoint
    /// URLs (see `ModgudEndpoints.init(base:discovery:)` for those it will
    /// not). Returns whether Modgud answered with a usable document.
    @discardableResult
    public func discover() async -> Bool {
        let url = configuration.baseURL + "/.well-known/openid-configuration"
        guard let reply = try? await send(.discovery, .get, url, headers: ["Accept": "application/json"]),
              reply.isSuccess, let document = reply.json, document["issuer"]?.stringValue != nil else { return false }
        let endpoints = ModgudEndpoints(base: configuration.baseURL, discovery: document)
        endpointsState.withLock { $0 = endpoints }
        return true
    }

    // MARK: Calls as the client, with the browser's address

    /// `POST /api/account/native/otp/request` (also `register`,
    /// `magic-link/request`: pass the call, the endpoint URL and the JSON body).
    public func postJSON(_ call: ModgudCall, _ url: String, body: JSON, forwardedFor client: IPAddress)
        async throws(ModgudFailure) -> ModgudReply {
        var headers = clientHeaders(forwardedFor: client)
        headers.add("Content-Type", "application/json")
        return try await send(call, .post, url, headers: headers, body: body.serialized)
    }

    /// `POST /connect/passkey/begin`.
    public func beginPasskey(forwardedFor client: IPAddress) async throws(ModgudFailure) -> ModgudReply {
        var headers = clientHeaders(forwardedFor: client)
        headers.add("Content-Type", "application/x-www-form-urlencoded")
        let form = FormURLEncoded.serialize([("client_id", configuration.clientID)])
        return try await send(.passkeyBegin, .post, endpoints.passkeyBegin, headers: headers, body: Array(form.utf8))
    }

    /// `POST /connect/token` with the login client (every grant but
    /// client_credentials), the browser's address attached. `resources`
    /// nil asks for the configured sign-in audiences; a refresh passes the
    /// one audience it wants (or none, to keep the grant's).
    public func token(_ grant: TokenGrant, resources: [String]? = nil, forwardedFor client: IPAddress) async throws(ModgudFailure) -> ModgudReply {
        var headers = clientHeaders(forwardedFor: client)
        headers.add("Content-Type", "application/x-www-form-urlencoded")
        let form = FormURLEncoded.serialize(grant.formFields(scope: configuration.scopes, resources: resources ?? configuration.resources))
        return try await send(ModgudCall(grant), .post, endpoints.token, headers: headers, body: Array(form.utf8))
    }

    /// `POST /connect/token` with the machine client's credentials. No
    /// forwarded address: no browser is behind this call.
    public func clientCredentialsToken(scope: String?, resource: String?) async throws(ModgudFailure) -> ModgudReply? {
        guard let machineBasic else { return nil }
        var headers = HTTPHeaders()
        headers.add("Authorization", machineBasic.revealed)
        headers.add("Accept", "application/json")
        headers.add("Content-Type", "application/x-www-form-urlencoded")
        let form = FormURLEncoded.serialize(TokenGrant.clientCredentials.formFields(scope: scope, resources: resource.map { [$0] } ?? []))
        return try await send(.clientCredentials, .post, endpoints.token, headers: headers, body: Array(form.utf8))
    }

    /// `POST` of a pushed authorization request (RFC 9126) to the endpoint
    /// discovery advertised, as the client, with the browser's address.
    /// Nil when Modgud advertises none.
    public func pushAuthorization(_ fields: [(String, String)], forwardedFor client: IPAddress)
        async throws(ModgudFailure) -> ModgudReply? {
        guard let url = endpoints.pushedAuthorization else { return nil }
        var headers = clientHeaders(forwardedFor: client)
        headers.add("Content-Type", "application/x-www-form-urlencoded")
        return try await send(.par, .post, url, headers: headers, body: Array(FormURLEncoded.serialize(fields).utf8))
    }

    /// `POST` to the device authorization endpoint (RFC 8628 §3.1) as the
    /// client, with the browser's address: the scopes and audiences a
    /// sign-in asks for, as the code flow's authorize request names them.
    public func deviceAuthorization(forwardedFor client: IPAddress) async throws(ModgudFailure) -> ModgudReply {
        var headers = clientHeaders(forwardedFor: client)
        headers.add("Content-Type", "application/x-www-form-urlencoded")
        let fields = [("scope", configuration.scopes)] + configuration.resources.map { ("resource", $0) }
        return try await send(.deviceAuthorization, .post, endpoints.deviceAuthorization, headers: headers, body: Array(FormURLEncoded.serialize(fields).utf8))
    }

    /// `POST /connect/revoke` with Basic alone.
    public func revoke(_ token: Secret, hint: String) async throws(ModgudFailure) -> ModgudReply {
        var headers = HTTPHeaders()
        headers.add("Authorization", basic.revealed)
        headers.add("Content-Type", "application/x-www-form-urlencoded")
        let form = FormURLEncoded.serialize([("token", token.revealed), ("token_type_hint", hint)])
        return try await send(.revoke, .post, endpoints.revocation, headers: headers, body: Array(form.utf8))
    }

    // MARK: Calls with the user's token

    /// A call authorised by the user's access token (userinfo, passkey
    /// management). No client authentication, no forwarded address.
    public func withBearer(_ call: ModgudCall, _ method: HTTPMethod, _ url: String, accessToken: Secret, json: JSON? = nil)
        async throws(ModgudFailure) -> ModgudReply {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer " + accessToken.revealed)
        headers.add("Accept", "application/json")
        if json != nil { headers.add("Content-Type", "application/json") }
        return try await send(call, method, url, headers: headers, body: json?.serialized)
    }

    /// `GET` of Modgud's JSON Web Key Set (discovery's `jwks_uri`), anonymous.
    public func keySet() async throws(ModgudFailure) -> ModgudReply {
        try await send(.jwks, .get, endpoints.jwks, headers: ["Accept": "application/json"])
    }

    /// `GET /api/app-info`, anonymous.
    public func appInfo() async throws(ModgudFailure) -> ModgudReply {
        try await send(.appInfo, .get, endpoints.appInfo, headers: ["Accept": "application/json"])
    }

    // MARK: Transport

    private func clientHeaders(forwardedFor client: IPAddress) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add("Authorization", basic.revealed)
        headers.add("Modgud-Forwarded-For", client.description)
        headers.add("Accept", "application/json")
        return headers
    }

    private func send(_ call: ModgudCall, _ method: HTTPMethod, _ url: String, headers: HTTPHeaders,
                      body: [UInt8]? = nil) async throws(ModgudFailure) -> ModgudReply {
        var headers = headers
        headers.add("traceparent", (TraceContext.current ?? SpanIDs.startedTrace()).traceparent(span: SpanIDs.next()))
        let request = HTTPClientRequest(method: method, url: url, headers: headers, body: body,
                                        timeout: configuration.timeout, maxResponseBytes: configuration.maxResponseBytes)
        do {
            let response = try await http.execute(request)
            observer(call, ModgudCallOutcome(status: response.status.code))
            return ModgudReply(status: response.status, headers: response.headers, body: response.body)
        } catch {
            observer(call, ModgudCallOutcome(error))
            switch error {
            case .timedOut(let sent): throw .timedOut(requestSent: sent)
            case .responseTooLarge: throw .badResponse
            default: throw error.requestMayHaveBeenProcessed ? .broken : .unreachable
            }
        }
    }
}

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
