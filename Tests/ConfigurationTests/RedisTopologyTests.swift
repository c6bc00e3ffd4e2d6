import Testing
@testable import Configuration

@Suite("Redis topologies: BFF_REDIS_MODE and the hosts of BFF_REDIS_URL")
struct RedisTopologyTests {
    let password = redisPasswordMarker

    @Test("single mode, the default: one host, as before")
    func single() throws {
        let config = try loadConfig(["BFF_REDIS_URL": "redis://app:\(password)@Cache.Internal:6380/2"])
        #expect(config.redis.mode == .single)
        #expect(config.redis.nodes == [RedisNode(host: "cache.internal", port: 6380)])
        #expect(config.redis.host == "cache.internal" && config.redis.port == 6380)
        #expect(config.redis.username == "app" && config.redis.password?.revealed == password && config.redis.database == 2)
        #expect(config.redis.tls == nil && config.redis.sentinelMaster == nil)
        let defaults = try loadConfig(["BFF_REDIS_MODE": "single"]).redis
        #expect(defaults == RedisEndpoint(host: "127.0.0.1", port: 6379, database: 0))
        #expect(defaults.waitReplicas == 0 && defaults.waitTimeout == .milliseconds(100))
    }

    @Test("rediss:// with one host is accepted and asks for TLS with the system's trust store", arguments: [
        ("rediss://cache", RedisNode(host: "cache", port: 6379)),
        ("REDISS://:\(redisPasswordMarker)@[::1]:6380/1", RedisNode(host: "::1", port: 6380)),
    ])
    func tlsSingle(url: String, node: RedisNode) throws {
        let redis = try loadConfig(["BFF_REDIS_URL": url]).redis
        #expect(redis.tls == RedisTLSFiles())
        #expect(redis.nodes == [node])
        #expect(redis.description.hasPrefix("rediss://"))
        #expect(!redis.description.contains(password))
    }

    @Test("sentinel mode: the URL lists the sentinels, port 26379 where none is given")
    func sentinel() throws {
        let config = try loadConfig(["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_SENTINEL_MASTER": "bff",
                                     "BFF_REDIS_URL": "redis://:\(password)@s1,s2:26380,[fd00::7]/3"])
        #expect(config.redis.mode == .sentinel)
        #expect(config.redis.nodes == [RedisNode(host: "s1", port: 26379), RedisNode(host: "s2", port: 26380),
                                       RedisNode(host: "fd00::7", port: 26379)])
        #expect(config.redis.sentinelMaster == "bff")
        #expect(config.redis.password?.revealed == password)
        #expect(config.redis.database == 3)
        #expect(config.redis.description == "redis://:<redacted>@s1:26379,s2:26380,[fd00::7]:26379/3 (sentinel master bff)")
        let one = try loadConfig(["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_SENTINEL_MASTER": "bff",
                                  "BFF_REDIS_URL": "redis://sentinel.internal"])
        #expect(one.redis.nodes == [RedisNode(host: "sentinel.internal", port: 26379)])
    }

    @Test("cluster mode: the URL lists seed nodes, port 6379 where none is given, database 0", arguments: [
        "redis://c1,c2:7001,c3", "redis://c1,c2:7001,c3/0", "redis://c1,c2:7001,c3/",
    ])
    func cluster(url: String) throws {
        let redis = try loadConfig(["BFF_REDIS_MODE": "cluster", "BFF_REDIS_URL": url]).redis
        #expect(redis.mode == .cluster)
        #expect(redis.nodes.map(\.description) == ["c1:6379", "c2:7001", "c3:6379"])
        #expect(redis.database == 0)
        #expect(redis.description == "redis://c1:6379,c2:7001,c3:6379/0 (cluster)")
    }

    @Test("cluster mode over TLS, one seed is enough")
    func clusterTLS() throws {
        let redis = try loadConfig(["BFF_REDIS_MODE": "cluster", "BFF_REDIS_URL": "rediss://app:\(password)@c1:6380"]).redis
        #expect(redis.tls != nil && redis.nodes == [RedisNode(host: "c1", port: 6380)])
        #expect(redis.description == "rediss://app:<redacted>@c1:6380/0 (cluster)")
    }

    @Test("single mode refuses a host list, naming the modes that take one")
    func singleRefusesList() throws {
        let message = try expectRedisProblem(["BFF_REDIS_URL": "redis://:\(password)@r1:6379,r2:6379/0"],
                                             setting: "BFF_REDIS_URL", mentions: ["BFF_REDIS_MODE", "sentinel", "cluster"])
        #expect(message.contains("2 hosts"))
    }

    @Test("cluster mode refuses a database other than 0")
    func clusterRefusesDatabase() throws {
        try expectRedisProblem(["BFF_REDIS_MODE": "cluster", "BFF_REDIS_URL": "redis://:\(password)@c1,c2/3"],
                               setting: "BFF_REDIS_URL", mentions: ["database 0", "cluster"])
    }

    @Test("a node listed twice is refused")
    func duplicateNode() throws {
        try expectRedisProblem(["BFF_REDIS_MODE": "cluster", "BFF_REDIS_URL": "redis://:\(password)@c1,C1:6379"],
                               setting: "BFF_REDIS_URL", mentions: ["twice"])
    }

    @Test("an empty or bad host in the list is refused", arguments: [
        "redis://:\(redisPasswordMarker)@s1,,s2", "redis://:\(redisPasswordMarker)@s1,", "redis://:\(redisPasswordMarker)@s1,[::1",
        "redis://:\(redisPasswordMarker)@s1,s2:0", "redis://:\(redisPasswordMarker)@s1,s 2",
    ])
    func badHostInList(url: String) throws {
        try expectRedisProblem(["BFF_REDIS_MODE": "sentinel", "BFF_REDIS_SENTINEL_MASTER": "bff", "BFF_REDIS_URL": url],
                               setting: "BFF_REDIS_URL")
    }

    @Test("an unknown mode is the one problem; the URL is not judged by a mode it may not have")
    func unknownMode() throws {
        try expectRedisProblem(["BFF_REDIS_MODE": "replicated", "BFF_REDIS_URL": "redis://:\(password)@r1,r2/4"],
                               setting: "BFF_REDIS_MODE", mentions: ["single, sentinel, cluster"])
    }

    @Test("host and port are the first node's, and setting them changes it")
    func firstNode() {
        var endpoint = RedisEndpoint(mode: .sentinel, nodes: [])
        #expect(endpoint.port == 26379)
        endpoint.host = "s1"
        #expect(endpoint.nodes == [RedisNode(host: "s1", port: 26379)])
        endpoint.nodes.append(RedisNode(host: "s2", port: 26380))
        endpoint.port = 26000
        #expect(endpoint.nodes.map(\.description) == ["s1:26000", "s2:26380"])
        #expect(RedisNode(host: "::1", port: 6379).description == "[::1]:6379")
    }
}
