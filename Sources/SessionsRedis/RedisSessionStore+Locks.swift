import Redis
import Sessions

// Leased locks (`bff:l:…`) and the expiring set index (`bff:u:…`).
extension RedisSessionStore {
    /// The Redis key of the lock `name`.
    public func lockKey(_ name: String) -> [UInt8] {
        lockPrefix + name.utf8
    }

    /// `SessionStore.acquireLock`: see the protocol for the contract.
    public func acquireLock(_ name: String, lease: Duration) async throws(SessionStoreError) -> LockToken? {
        let token = try LockToken.random(name: name)
        let redisKey = lockPrefix + name.utf8
        let acquired = try await run { () async throws(RedisError) in
            try await client.setIfAbsent(redisKey, Array(token.value.utf8), ttl: lease)
        }
        return acquired ? token : nil
    }

    /// `SessionStore.renewLock`: see the protocol for the contract.
    public func renewLock(_ token: LockToken, lease: Duration) async throws(SessionStoreError) -> Bool {
        let redisKey = lockPrefix + token.name.utf8
        let reply = try await run { () async throws(RedisError) in
            try await client.eval(SessionScripts.renewLock, keys: [redisKey],
                                  arguments: [Array(token.value.utf8), decimal(max(1, lease.wholeMilliseconds))])
        }
        return try Self.flag(reply)
    }

    /// `SessionStore.releaseLock`: see the protocol for the contract.
    @discardableResult
    public func releaseLock(_ token: LockToken) async throws(SessionStoreError) -> Bool {
        let redisKey = lockPrefix + token.name.utf8
        let reply = try await run { () async throws(RedisError) in
            try await client.eval(SessionScripts.releaseLock, keys: [redisKey], arguments: [Array(token.value.utf8)])
        }
        return try Self.flag(reply)
    }

    /// `SessionStore.addToIndex`: see the protocol for the contract.
    public func addToIndex(_ index: String, member: String, ttl: Duration) async throws(SessionStoreError) {
        let redisKey = indexPrefix + index.utf8
        let now = unixClock.unixMilliseconds()
        let expiry = now &+ UInt64(ttl.wholeMilliseconds)
        _ = try await run { () async throws(RedisError) in
            try await client.eval(SessionScripts.addToIndex, keys: [redisKey],
                                  arguments: [Array(member.utf8), decimal(expiry), decimal(now)])
        }
    }

    /// `SessionStore.indexMembers`: see the protocol for the contract.
    public func indexMembers(_ index: String) async throws(SessionStoreError) -> [String] {
        let redisKey = indexPrefix + index.utf8
        let now = unixClock.unixMilliseconds()
        let reply = try await run { () async throws(RedisError) in
            try await client.send([Array("ZRANGE".utf8), redisKey, Array("(\(now)".utf8), Array("+inf".utf8),
                                   Array("BYSCORE".utf8)])
        }
        guard let members = reply.array else { throw .unexpectedReply(reason: "expected an array of index members") }
        return try members.map { member throws(SessionStoreError) in
            guard let text = member.text else { throw .unexpectedReply(reason: "an index member that is not text") }
            return text
        }
    }

    /// `SessionStore.removeFromIndex`: see the protocol for the contract.
    public func removeFromIndex(_ index: String, member: String) async throws(SessionStoreError) {
        let redisKey = indexPrefix + index.utf8
        _ = try await run { () async throws(RedisError) in
            try await client.send([Array("ZREM".utf8), redisKey, Array(member.utf8)])
        }
    }
}
