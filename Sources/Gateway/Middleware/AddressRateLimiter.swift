import Configuration
import Core
import HTTP
import Routing
import Synchronization

/// A token bucket per client address (the forwarded one, as everywhere;
/// an IPv6 address counted by its /64), in this process only: each
/// instance keeps its own buckets. Memory is bounded: past `capacity`
/// tracked addresses the least recently seen are dropped (a dropped
/// address starts again with a full bucket).
final class AddressRateLimiter: Sendable {
    /// The refusal's `policy` (`app-login-start`, `app-login-session`).
    let policy: String
    private let limit: RateLimit
    private let capacity: Int
    private let now: @Sendable () -> Duration
    private let buckets = Mutex<[IPAddress: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: Duration
    }

    /// A limiter by `limit`, tracking at most `capacity` addresses, reading
    /// time from `clock`.
    convenience init<C: Clock>(policy: String, limit: RateLimit, capacity: Int = 10_000, clock: C = ContinuousClock())
        where C.Duration == Duration
    {
        let origin = clock.now
        self.init(policy: policy, limit: limit, capacity: capacity, now: { origin.duration(to: clock.now) })
    }

    /// A limiter reading the time elapsed on a monotonic line from `now`
    /// (a test moves it by hand).
    init(policy: String, limit: RateLimit, capacity: Int, now: @escaping @Sendable () -> Duration) {
        self.policy = policy
        self.limit = limit
        self.capacity = max(1, capacity)
        self.now = now
    }

    /// Tokens added per second.
    private var refillPerSecond: Double {
        Double(limit.count) / (Double(limit.period.components.seconds) + Double(limit.period.components.attoseconds) / 1e18)
    }

    /// Takes one token for `address`; nil when there was one, else the
    /// whole seconds until there is (at least 1).
    func take(_ address: IPAddress) -> Int? {
        let key = address.clientKey
        let time = now()
        let rate = refillPerSecond
        let burst = Double(limit.burst)
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: time)
            let elapsed = Double((time - bucket.updated).components.seconds)
                + Double((time - bucket.updated).components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + max(0, elapsed) * rate)
            bucket.updated = time
            var wait: Int?
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
            } else {
                wait = max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            if buckets[key] == nil, buckets.count >= capacity { Self.dropOldest(&buckets, keeping: capacity) }
            buckets[key] = bucket
            return wait
        }
    }

    /// Drops the least recently seen tenth (at least one), so that a flood
    /// of new addresses costs one sort per tenth of the capacity.
    private static func dropOldest(_ buckets: inout [IPAddress: Bucket], keeping capacity: Int) {
        let drop = max(1, capacity / 10, buckets.count - capacity + 1)
        for (key, _) in buckets.sorted(by: { $0.value.updated < $1.value.updated }).prefix(drop) {
            buckets[key] = nil
        }
    }

    /// How many addresses are tracked now.
    var trackedAddresses: Int { buckets.withLock { $0.count } }

    /// Takes a token for `address` or throws the 429 in Modgud's shape.
    func check(_ address: IPAddress) throws {
        if let wait = take(address) { throw RateLimitRefusal(policy: policy, retryAfterSeconds: wait) }
    }
}

/// The 429 of the gateway's own rate limits, in Modgud's shape: header
/// `Retry-After`, body `{"error":"rate_limited","policy",
/// "dimension":"source","retryAfterSeconds"}`.
struct RateLimitRefusal: HTTPResponseError {
    let policy: String
    let retryAfterSeconds: Int

    var status: HTTPStatus { .tooManyRequests }

    var responseHeaders: HTTPHeaders {
        ["Content-Type": "application/json", "Cache-Control": "no-store", "Retry-After": String(retryAfterSeconds)]
    }

    var responseBody: [UInt8] {
        JSON.makeObject([("error", "rate_limited"), ("policy", .string(policy)), ("dimension", "source"),
                         ("retryAfterSeconds", .int(Int64(retryAfterSeconds)))]).serialized
    }
}
