import Core
import Synchronization

/// The keys one request presents to a policy; a nil key skips its dimension.
struct RateLimitKeys: Sendable {
    var source: String?
    var target: String?
    var client: String?
    var app: String?
    /// The source is on the allowlist: the `source` dimension does not apply.
    var sourceAllowlisted = false

    func key(_ dimension: RateLimitDimension) -> String? {
        switch dimension {
        case .source: sourceAllowlisted ? nil : source
        case .target: target
        case .client: client
        case .app: app
        }
    }
}

/// A request the limiter turned away (or, in log-only mode, would have).
struct RateLimitRejection: Sendable {
    var policy: String
    var dimension: RateLimitDimension
    var retryAfterSeconds: Int
    var limit: Int
    var enforced: Bool
}

/// Token buckets and fixed windows per policy, dimension and key, with the
/// counts `/dev/stats` reports. Dimensions are evaluated in order (source,
/// target, client, app); each one passed is spent, and the first that
/// refuses stops the evaluation, as Modgud's evaluator does.
final class RateLimiter: Sendable {
    private struct Slot: Hashable {
        var policy: String
        var dimension: String
        var key: String
    }

    private struct Bucket {
        /// Tokens left (bucket) or hits so far (window).
        var level: Double
        /// Last refill (bucket) or window start (window).
        var time: Double
    }

    private struct Counters {
        var buckets: [Slot: Bucket] = [:]
        var rejections: [String: [String: Int]] = [:]
        var requests: [String: Int] = [:]
        var distinct: [String: Set<String>] = [:]
        var rejectedKeys: [String: Set<String>] = [:]
        var silentRegistrations = 0
    }

    private let state = Mutex(Counters())

    /// Spends one request of `policy` for `keys`; the rejection, if any.
    func check(_ policyName: String, keys: RateLimitKeys, settings: RateLimitSettings, now: Double) -> RateLimitRejection? {
        guard settings.mode != .off, let policy = settings.policies[policyName] else { return nil }
        return state.withLock { state in
            for dimension in RateLimitDimension.allCases {
                guard let rule = policy.rules[dimension], let key = keys.key(dimension) else { continue }
                let name = dimension.rawValue
                state.requests[name, default: 0] += 1
                state.distinct[name, default: []].insert(key)
                let slot = Slot(policy: policyName, dimension: name, key: key)
                if let wait = Self.spend(&state.buckets[slot], rule: rule, now: now) {
                    state.rejections[policyName, default: [:]][name, default: 0] += 1
                    state.rejectedKeys[name, default: []].insert(key)
                    let enforced = settings.mode == .enforce
                    return RateLimitRejection(policy: policyName, dimension: dimension, retryAfterSeconds: wait,
                                              limit: rule.capacity, enforced: enforced)
                }
            }
            return nil
        }
    }

    /// The silent sign-ups-per-source ceiling: whether an unknown address
    /// may enter registration from `source` (true when no ceiling is set).
    func allowsRegistration(_ policyName: String, source: String?, settings: RateLimitSettings, now: Double) -> Bool {
        guard settings.mode != .off, let source, let rule = settings.policies[policyName]?.sourceRegistration else { return true }
        return state.withLock { state in
            let slot = Slot(policy: policyName, dimension: "source-registration", key: source)
            guard Self.spend(&state.buckets[slot], rule: rule, now: now) != nil else { return true }
            state.silentRegistrations += 1
            return settings.mode != .enforce
        }
    }

    /// Takes one unit; nil when allowed, else whole seconds (≥ 1) to wait.
    private static func spend(_ bucket: inout Bucket?, rule: RateLimitRule, now: Double) -> Int? {
        let ratePerSecond = Double(rule.limit) / rule.windowSeconds
        if let burst = rule.burst {
            var current = bucket ?? Bucket(level: Double(burst), time: now)
            current.level = min(Double(burst), current.level + max(0, now - current.time) * ratePerSecond)
            current.time = now
            defer { bucket = current }
            if current.level >= 1 {
                current.level -= 1
                return nil
            }
            return max(1, Int(((1 - current.level) / ratePerSecond).rounded(.up)))
        }
        var current = bucket ?? Bucket(level: 0, time: now)
        if now - current.time >= rule.windowSeconds { current = Bucket(level: 0, time: now) }
        defer { bucket = current }
        if current.level < Double(rule.limit) {
            current.level += 1
            return nil
        }
        return max(1, Int((current.time + rule.windowSeconds - now).rounded(.up)))
    }

    func reset() { state.withLock { $0 = Counters() } }

    /// `{"rejections":{policy:{dimension:n}},"rejectionsTotal","requestsPerDimension",
    /// "distinctKeys","rejectedKeys","silentRegistrations","buckets"}`.
    var json: JSON {
        state.withLock { state in
            var rejections = JSONObject()
            var total = 0
            for policy in state.rejections.keys.sorted() {
                var dimensions = JSONObject()
                for (dimension, count) in state.rejections[policy]!.sorted(by: { $0.key < $1.key }) {
                    dimensions[dimension] = .int(Int64(count))
                    total += count
                }
                rejections[policy] = .object(dimensions)
            }
            func perDimension(_ values: (String) -> Int) -> JSON {
                var object = JSONObject()
                for dimension in RateLimitDimension.allCases { object[dimension.rawValue] = .int(Int64(values(dimension.rawValue))) }
                return .object(object)
            }
            return [
                "rejections": .object(rejections),
                "rejectionsTotal": .int(Int64(total)),
                "requestsPerDimension": perDimension { state.requests[$0] ?? 0 },
                "distinctKeys": perDimension { state.distinct[$0]?.count ?? 0 },
                "rejectedKeys": perDimension { state.rejectedKeys[$0]?.count ?? 0 },
                "silentRegistrations": .int(Int64(state.silentRegistrations)),
                "buckets": .int(Int64(state.buckets.count)),
            ]
        }
    }
}
