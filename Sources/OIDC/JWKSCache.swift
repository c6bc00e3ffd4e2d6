import Crypto

/// The identity server's signing keys, fetched through an injected closure
/// and fetched again when a token names a `kid` the held set lacks — at
/// most once per `refetchInterval`, so tokens with made-up key ids cannot
/// turn into a stream of JWKS requests. Lookups that arrive while a fetch
/// is under way wait for that fetch rather than starting another.
public actor JWKSCache {
    /// Fetches the current key set (the discovery document's `jwks_uri`).
    public typealias Fetch = @Sendable () async throws -> JWKSet

    private let fetch: Fetch
    private let now: @Sendable () -> Int64
    /// The shortest time between two fetches, in seconds.
    public let refetchInterval: Int64
    private var keys = JWKSet()
    private var lastFetch: Int64?
    private var inFlight: Task<JWKSet?, Never>?

    /// A cache that holds no keys yet: the first lookup fetches.
    /// `now` gives seconds since the epoch (any monotone count of seconds does).
    public init(refetchInterval: Int64 = 60, now: @escaping @Sendable () -> Int64, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.now = now
        self.refetchInterval = refetchInterval
    }

    /// A cache that starts with `keys`, fetched at `now()`.
    public init(keys: JWKSet, refetchInterval: Int64 = 60, now: @escaping @Sendable () -> Int64, fetch: @escaping Fetch) {
        self.fetch = fetch
        self.now = now
        self.refetchInterval = refetchInterval
        self.keys = keys
        lastFetch = now()
    }

    /// The RS256 key `kid` names: in the held set, or else in a set
    /// fetched now when a fetch is under way or allowed.
    ///
    /// - Throws: `.keyNotForAlgorithm` for a key not for RS256;
    ///   `.keysUnavailable` when the fetch this lookup waited for failed;
    ///   `.unknownKey` otherwise. A failed fetch keeps the held set and
    ///   counts as a fetch for the interval.
    public func key(for kid: String) async throws(JWTError) -> RSAPublicKey {
        let (lookup, fetchFailed) = await resolve(kid)
        switch lookup {
        case .key(let key): return key
        case .notForRS256: throw .keyNotForAlgorithm
        case .unknown: throw fetchFailed ? .keysUnavailable : .unknownKey
        }
    }

    private func resolve(_ kid: String) async -> (JWKSet.Lookup, fetchFailed: Bool) {
        let held = keys.lookup(kid)
        guard held == .unknown else { return (held, false) }
        if let inFlight {
            // The fetch's own caller may resume after this one: store the
            // set here too rather than read a `keys` not yet replaced.
            let fetched = await inFlight.value
            if let fetched { keys = fetched }
            return (keys.lookup(kid), fetched == nil)
        }
        let time = now()
        if let lastFetch, time - lastFetch < refetchInterval { return (.unknown, false) }
        lastFetch = time
        let fetch = self.fetch
        let task = Task<JWKSet?, Never> { try? await fetch() }
        inFlight = task
        let fetched = await task.value
        inFlight = nil
        if let fetched { keys = fetched }
        return (keys.lookup(kid), fetched == nil)
    }

    /// The set held now.
    public var current: JWKSet { keys }
}
