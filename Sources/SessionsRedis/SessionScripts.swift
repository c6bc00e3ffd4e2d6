import Redis

/// The Lua scripts of `RedisSessionStore`. Each runs atomically in one
/// round trip (`EVALSHA`, loaded on `NOSCRIPT`) and touches one key, so the
/// store also works per key on Redis Cluster. Numbers travel as ASCII
/// decimal; times are Unix milliseconds from the gateway's clock (the same
/// clock that set the records' absolute expiries). Lua numbers are doubles:
/// exact for these values (< 2⁵³).
enum SessionScripts {
    /// A record is a hash: `v` version, `x` absolute expiry, `d` sealed bytes.
    /// KEYS[1] record · ARGV: version, absolute expiry, bytes, TTL ms (> 0).
    static let save = RedisScript("""
        redis.call('HSET', KEYS[1], 'v', ARGV[1], 'x', ARGV[2], 'd', ARGV[3])
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        return 1
        """)

    /// Reads the record and renews its TTL to min(touch, absolute expiry − now);
    /// a record past its absolute expiry is deleted and reads as nil.
    /// KEYS[1] record · ARGV: touch ms, now.
    static let loadAndTouch = RedisScript("""
        local r = redis.call('HMGET', KEYS[1], 'v', 'x', 'd')
        if not r[1] or not r[2] or not r[3] then return false end
        local left = tonumber(r[2]) - tonumber(ARGV[2])
        if left <= 0 then
          redis.call('DEL', KEYS[1])
          return false
        end
        local ttl = tonumber(ARGV[1])
        if left < ttl then ttl = left end
        redis.call('PEXPIRE', KEYS[1], ttl)
        return r
        """)

    /// Reads and deletes the record (single use). KEYS[1] record.
    static let take = RedisScript("""
        local r = redis.call('HMGET', KEYS[1], 'v', 'x', 'd')
        redis.call('DEL', KEYS[1])
        if not r[1] or not r[2] or not r[3] then return false end
        return r
        """)

    /// Fencing write: only when the stored version is the expected one.
    /// KEYS[1] record · ARGV: expected version, next version, absolute
    /// expiry, bytes, TTL ms (≤ 0 deletes). Returns 1 when written.
    static let compareAndSet = RedisScript("""
        if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
        local ttl = tonumber(ARGV[5])
        if ttl <= 0 then
          redis.call('DEL', KEYS[1])
          return 1
        end
        redis.call('HSET', KEYS[1], 'v', ARGV[2], 'x', ARGV[3], 'd', ARGV[4])
        redis.call('PEXPIRE', KEYS[1], ttl)
        return 1
        """)

    /// Extends a lock held by the caller. KEYS[1] lock · ARGV: holder value, lease ms.
    static let renewLock = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('PEXPIRE', KEYS[1], ARGV[2])
        end
        return 0
        """)

    /// Releases a lock held by the caller. KEYS[1] lock · ARGV: holder value.
    static let releaseLock = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('DEL', KEYS[1])
        end
        return 0
        """)

    /// The index is a sorted set scored by each member's expiry. Drops
    /// expired members, adds (or renews) one, and lets the set itself
    /// expire with its last member. KEYS[1] index · ARGV: member, expiry, now.
    static let addToIndex = RedisScript("""
        redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
        redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
        local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
        local ttl = tonumber(last[2]) - tonumber(ARGV[3])
        if ttl < 1 then ttl = 1 end
        redis.call('PEXPIRE', KEYS[1], ttl)
        return 1
        """)

    /// Every script, for loading them ahead of the first request.
    static let all = [save, loadAndTouch, take, compareAndSet, renewLock, releaseLock, addToIndex]
}
