import Redis
import Sessions

// One-time identifiers (`bff:l:replay:…`), beside the locks.
extension RedisSessionStore: ReplayCache {
    /// `ReplayCache.recordFirstUse`: `SET bff:l:replay:<key> 1 NX PX <ttl>`,
    /// one round trip.
    public func recordFirstUse(_ key: String, ttl: Duration) async throws(SessionStoreError) -> Bool {
        let redisKey = replayKey(key)
        return try await run { () async throws(RedisError) in
            try await client.setIfAbsent(redisKey, [0x31], ttl: max(.milliseconds(1), ttl))
        }
    }

    /// `ReplayCache.forgetUse`: `DEL`.
    public func forgetUse(_ key: String) async throws(SessionStoreError) {
        let redisKey = replayKey(key)
        _ = try await run { () async throws(RedisError) in try await client.delete([redisKey]) }
    }

    private func replayKey(_ key: String) -> [UInt8] { lockPrefix + Array("replay:".utf8) + key.utf8 }
}
