import Core
import Modgud
import Routing
import Synchronization

/// Client-credentials tokens of the machine client (BFF_M2M_CLIENT_ID),
/// one per audience, kept in memory until they come within the refresh
/// skew of expiry, or past half their life when they live no longer than
/// twice the skew (a token living no longer than the skew would otherwise
/// be fetched again for every request). However many requests find a
/// token missing or stale at once, Modgud is asked once per audience
/// (single flight); a failed ask is not cached, and a 429 is relayed,
/// never retried.
final class ClientTokenCache: Sendable {
    private struct Entry {
        var token: Secret
        /// When it is fetched again.
        var renewAt: ContinuousClock.Instant
    }

    private let modgud: ModgudClient
    private let relay: ModgudRelay
    private let skew: Duration
    private let entries = Mutex<[String: Entry]>([:])
    private let inFlight = Mutex<[String: Task<Result<Entry, ClientTokenFailure>, Never>]>([:])

    init(modgud: ModgudClient, relay: ModgudRelay, skew: Duration) {
        self.modgud = modgud
        self.relay = relay
        self.skew = skew
    }

    /// A token for `resource` (nil: the client's default audience).
    func token(resource: String?, context: RequestContext) async throws -> Secret {
        let key = resource ?? ""
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[key] }), entry.renewAt > now { return entry.token }
        let task = inFlight.withLock { table in
            if let running = table[key] { return running }
            let task = Task { [modgud] in
                let result = await Self.fetch(modgud, resource: resource, skew: self.skew)
                // Stored before the flight ends, so no request finds neither.
                if case .success(let entry) = result { self.entries.withLock { $0[key] = entry } }
                self.inFlight.withLock { _ = $0.removeValue(forKey: key) }
                return result
            }
            table[key] = task
            return task
        }
        switch await task.value {
        case .success(let entry):
            return entry.token
        case .failure(.rateLimited(let reply)):
            throw relay.rateLimited(reply, endpoint: "client_credentials", context: context)
        case .failure(.unavailable):
            context.logger.warning("client_token.unavailable")
            throw GatewayError.tokenUnavailable
        case .failure(.refused(let status)):
            context.logger.error("client_token.refused", ["status": .int(status)])
            throw GatewayError(.badGateway, "upstream_error", "The identity server refused the gateway a token for this API.")
        }
    }

    private static func fetch(_ modgud: ModgudClient, resource: String?, skew: Duration) async -> Result<Entry, ClientTokenFailure> {
        let reply: ModgudReply
        do {
            guard let answer = try await modgud.clientCredentialsToken(scope: nil, resource: resource) else {
                return .failure(.refused(status: 0))
            }
            reply = answer
        } catch {
            return .failure(.unavailable)
        }
        if reply.isRateLimited { return .failure(.rateLimited(reply)) }
        if reply.status.code >= 500 { return .failure(.unavailable) }
        guard reply.isSuccess, let json = reply.json, let tokens = TokenSet(json: json) else {
            return .failure(.refused(status: reply.status.code))
        }
        let lifetime = Duration.seconds(max(0, tokens.expiresIn))
        return .success(Entry(token: tokens.accessToken, renewAt: .now + lifetime - min(skew, lifetime / 2)))
    }
}

private enum ClientTokenFailure: Error {
    case rateLimited(ModgudReply)
    case unavailable
    case refused(status: Int)
}
