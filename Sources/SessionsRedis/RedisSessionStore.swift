import Redis
import Sessions

/// The Redis `SessionStore`: every operation is one round trip (a single
/// command or one Lua script), atomic, on one key.
///
/// Layout (prefix configurable, default `bff:`):
/// - `bff:s:<key>`: a record, a hash with `v` (version, decimal), `x`
///   (absolute expiry, Unix ms, decimal) and `d` (the sealed bytes); its
///   TTL is the idle timeout, never past `x`.
/// - `bff:l:<name>`: a lock, a string holding the holder's random value,
///   with the lease as its TTL (`SET NX PX`).
/// - `bff:u:<index>`: an index, a sorted set of members scored by their
///   expiry (Unix ms), expiring with its last member.
///
/// Redis errors map to `SessionStoreError`: not connected → `.unavailable`;
/// no reply in time or the connection dropped with the command in flight
/// → `.timedOut` (outcome unknown); an error reply → `.unexpectedReply`.
public struct RedisSessionStore: SessionStore, SessionLockStore {
    let client: RedisClient
    let recordPrefix: [UInt8]
    let lockPrefix: [UInt8]
    let indexPrefix: [UInt8]
    let unixClock: any UnixClock
    let durability: Durability?

    /// A store on `client`, writing keys under `keyPrefix`, reading "now"
    /// for absolute expiries and index scores from `unixClock`. A record
    /// cache goes in front of it as `CachingSessionStore`, with a
    /// `RedisRecordCache`. With `durability`, every record write waits for
    /// replicas (see ``Durability``).
    public init(client: RedisClient, keyPrefix: String = "bff:", unixClock: any UnixClock = SystemUnixClock(),
                durability: Durability? = nil) {
        self.client = client
        self.durability = durability
        recordPrefix = Array((keyPrefix + "s:").utf8)
        lockPrefix = Array((keyPrefix + "l:").utf8)
        indexPrefix = Array((keyPrefix + "u:").utf8)
        self.unixClock = unixClock
    }

    /// Loads every script into the server's script cache ahead of the first
    /// request (`EVALSHA` would load them on demand otherwise).
    public func preloadScripts() async throws(SessionStoreError) {
        for script in SessionScripts.all {
            _ = try await run { () async throws(RedisError) in
                try await client.send([Array("SCRIPT".utf8), Array("LOAD".utf8), Array(script.source.utf8)])
            }
        }
    }

    /// `SessionStore.save`: see the protocol for the contract.
    public func save(_ key: String, record: StoredRecord, ttl: Duration) async throws(SessionStoreError) {
        let redisKey = recordPrefix + key.utf8
        let milliseconds = record.timeToLive(ttl, now: unixClock.unixMilliseconds())
        _ = try await run { () async throws(RedisError) in
            guard milliseconds > 0 else { return try await client.send([Array("DEL".utf8), redisKey]) }
            return try await write(SessionScripts.save, key: redisKey, arguments: [
                decimal(record.version), decimal(record.absoluteExpiry), record.bytes, decimal(milliseconds),
            ])
        }
    }

    /// `SessionStore.load`: see the protocol for the contract.
    public func load(_ key: String, touch: Duration?) async throws(SessionStoreError) -> StoredRecord? {
        let redisKey = recordPrefix + key.utf8
        let now = unixClock.unixMilliseconds()
        let reply = try await run { () async throws(RedisError) in
            guard let touch else { return try await readRecord(redisKey) }
            return try await client.eval(SessionScripts.loadAndTouch, keys: [redisKey], arguments: [
                decimal(touch.wholeMilliseconds), decimal(now),
            ])
        }
        return try Self.record(from: reply)
    }

    /// The settings of a record cache for a store writing under `keyPrefix`.
    public static func recordCacheSettings(keyPrefix: String = "bff:", capacity: Int, maxStaleness: Duration)
        -> RedisTrackedCache.Settings
    {
        RedisTrackedCache.Settings(keyPrefix: Array((keyPrefix + "s:").utf8), capacity: capacity, maxStaleness: maxStaleness)
    }

    /// `SessionStore.take`: see the protocol for the contract.
    public func take(_ key: String) async throws(SessionStoreError) -> StoredRecord? {
        let redisKey = recordPrefix + key.utf8
        let reply = try await run { () async throws(RedisError) in
            try await client.eval(SessionScripts.take, keys: [redisKey])
        }
        return try Self.record(from: reply)
    }

    /// `SessionStore.delete`: see the protocol for the contract.
    public func delete(_ keys: [String]) async throws(SessionStoreError) {
        guard !keys.isEmpty else { return }
        let redisKeys = keys.map { recordPrefix + $0.utf8 }
        _ = try await run { () async throws(RedisError) in try await client.delete(redisKeys) }
    }

    /// `SessionStore.compareAndSet`: see the protocol for the contract.
    public func compareAndSet(
        _ key: String, expectedVersion: UInt64, record: StoredRecord, ttl: Duration
    ) async throws(SessionStoreError) -> Bool {
        let redisKey = recordPrefix + key.utf8
        let milliseconds = record.timeToLive(ttl, now: unixClock.unixMilliseconds())
        let reply = try await run { () async throws(RedisError) in
            try await write(SessionScripts.compareAndSet, key: redisKey, arguments: [
                decimal(expectedVersion), decimal(expectedVersion &+ 1), decimal(record.absoluteExpiry),
                record.bytes, decimal(milliseconds),
            ])
        }
        return try Self.flag(reply)
    }

    /// `SessionStore.checkAvailability`: see the protocol for the contract.
    public func checkAvailability() async throws(SessionStoreError) {
        try await run { () async throws(RedisError) in try await client.ping() }
    }

    // MARK: - Replies

    /// A record from `[v, x, d]`, or nil for a nil reply or missing fields.
    static func record(from reply: RedisValue) throws(SessionStoreError) -> StoredRecord? {
        switch reply {
        case .null:
            return nil
        case .array(let fields) where fields.count == 3:
            // The three bulk strings first: a record read on every request.
            if case .string(let versionBytes) = fields[0], case .string(let expiryBytes) = fields[1],
               case .string(let bytes) = fields[2], let version = parseDecimal(versionBytes),
               let expiry = parseDecimal(expiryBytes) {
                return StoredRecord(bytes: bytes, version: version, absoluteExpiry: expiry)
            }
            if isMissing(reply) { return nil }
            throw .unexpectedReply(reason: "a session record with missing or malformed fields")
        default:
            throw .unexpectedReply(reason: "expected a session record or nil")
        }
    }

    /// Whether a record reply says there is no record.
    static func isMissing(_ reply: RedisValue) -> Bool {
        switch reply {
        case .null: true
        case .array(let fields): fields.allSatisfy { $0.isNull }
        default: true
        }
    }

    /// A 0/1 integer reply as a Bool.
    static func flag(_ reply: RedisValue) throws(SessionStoreError) -> Bool {
        guard let value = reply.integer else { throw .unexpectedReply(reason: "expected an integer") }
        return value == 1
    }

    /// `HMGET` of a record's three fields.
    func readRecord(_ redisKey: [UInt8]) async throws(RedisError) -> RedisValue {
        try await client.send([Array("HMGET".utf8), redisKey, [0x76], [0x78], [0x64]])
    }

    /// Runs Redis calls, mapping their errors.
    func run<T>(_ body: () async throws(RedisError) -> T) async throws(SessionStoreError) -> T {
        do throws(RedisError) { return try await body() } catch { throw SessionStoreError(error) }
    }
}

extension SessionStoreError {
    /// The store error a Redis failure stands for: not connected →
    /// `.unavailable`; no reply in time or the connection dropped with the
    /// command in flight → `.timedOut`; an error reply → `.unexpectedReply`.
    public init(_ error: RedisError) {
        switch error {
        case .unavailable: self = .unavailable
        case .timedOut, .connectionLost: self = .timedOut
        case .server: self = .unexpectedReply(reason: error.description)
        case .protocolError: self = .internalFailure(reason: error.description)
        }
    }
}

/// ASCII decimal of an integer, as Redis takes numbers.
func decimal(_ value: some BinaryInteger) -> [UInt8] { Array(String(value).utf8) }

/// An unsigned decimal, or nil.
func parseDecimal(_ bytes: [UInt8]) -> UInt64? {
    // Digit by digit, not through a String (three times the cost): a
    // record's version and expiry are read on every request.
    guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
    return bytes.withUnsafeBufferPointer { digits in
        // Up to 19 digits cannot pass UInt64.max: no overflow checks.
        var value: UInt64 = 0
        for index in 0..<min(digits.count, 19) {
            let digit = digits[index] &- 0x30
            guard digit <= 9 else { return nil }
            value = value &* 10 &+ UInt64(digit)
        }
        guard digits.count == 20 else { return value }
        let digit = digits[19] &- 0x30
        guard digit <= 9 else { return nil }
        let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
        let (sum, carried) = tens.addingReportingOverflow(UInt64(digit))
        return overflowed || carried ? nil : sum
    }
}
