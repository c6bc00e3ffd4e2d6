import Core
import HTTP
import Observability
import Routing

/// The per-address cap for requests that come through a trusted reverse
/// proxy: the proxy holds connections for many clients, so the server's
/// per-peer connection count leaves it out, and here each forwarded client
/// address (as `ClientAddressResolver` finds it; an IPv6 one counted by its
/// /64) may have at most `limit`
/// requests in flight, from the head until the answer's head. One more is
/// refused with 429 and `Retry-After: 1`, before its endpoint runs.
/// A request whose chain names no untrusted address (the proxy's own, or
/// a proxy that sent no header) is not counted: that address is no client.
/// On a Unix-domain socket listener every request came through the proxy,
/// and ``ClientAddressResolver/unknownClient`` is not counted either.
struct ForwardedClientLimit: Middleware {
    private let addresses: ClientAddressResolver
    private let limit: Int
    private let inFlight = AddressCounts()
    private let refusals: Counter

    static let refusal = GatewayError(.tooManyRequests, "too_many_requests",
                                      "Too many requests from this address at once; retry shortly.",
                                      headers: ["Retry-After": "1"])

    /// Nil when there is nothing to count: no trusted proxy, or the cap off.
    init?(addresses: ClientAddressResolver, limit: Int, metrics: MetricsRegistry) {
        guard limit > 0, addresses.readsForwardedHeader else { return nil }
        self.addresses = addresses
        self.limit = limit
        refusals = metrics.counter("bff_http_forwarded_client_refusals_total",
                                   help: "Requests through a trusted proxy refused with 429: their client address "
                                       + "already had BFF_MAX_CONNECTIONS_PER_ADDRESS requests in flight.")
    }

    func prepare(_ request: HTTPRequest, context: RequestContext) throws {
        guard let client = countedClient(request) else { return }
        guard inFlight.claim(client, limit: limit) else {
            refusals.increment()
            throw Self.refusal
        }
    }

    func finish(_ request: HTTPRequest, context: RequestContext, outcome: inout Result<HTTPResponse, any Error>) {
        // The same request resolves to the same address: the one counted.
        if let client = countedClient(request) { inFlight.release(client) }
    }

    /// The forwarded client a request counts against: nil for a TCP peer
    /// that is no trusted proxy (the server counts its connections) and for
    /// a chain that ends at a trusted address or names no client.
    private func countedClient(_ request: HTTPRequest) -> IPAddress? {
        let client: IPAddress
        if addresses.peersAreProxies {
            client = addresses.clientAddress(of: request)
            guard client != ClientAddressResolver.unknownClient else { return nil }
        } else {
            guard let peer = request.peer?.ip, addresses.isTrusted(peer) else { return nil }
            client = addresses.clientAddress(peer: peer, headers: request.headers)
        }
        return addresses.isTrusted(client) ? nil : client.clientKey
    }
}
