import Core
import Foundation
@testable import Redis
import Testing

@Suite("Redis commands against a real redis-server")
struct CommandTests {
    @Test("GET, SET, DEL, EXPIRE round trips")
    func roundTrips() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client

            #expect(try await client.get(b("missing")) == nil)
            try await client.set(b("k"), b("v1"))
            #expect(try await client.get(b("k")) == b("v1"))
            #expect(try await client.setIfAbsent(b("k"), b("v2"), ttl: .seconds(5)) == false)
            #expect(try await client.setIfAbsent(b("fresh"), b("v3"), ttl: .seconds(5)) == true)
            #expect(try await client.get(b("fresh")) == b("v3"))

            // Wide bounds: the parallel pass can stall a test for a second.
            #expect(try await client.expire(b("k"), after: .milliseconds(15000)))
            let ttl = try await client.send([b("PTTL"), b("k")]).integer ?? -1
            #expect(ttl > 5000 && ttl <= 15000)
            #expect(try await client.expire(b("nothing"), after: .seconds(1)) == false)

            try await client.set(b("short"), b("x"), ttl: .milliseconds(50))
            #expect(await eventually(timeout: .seconds(2)) { (try? await client.get(b("short"))) == .some(nil) })

            #expect(try await client.delete([b("k"), b("fresh"), b("nothing")]) == 2)
            #expect(try await client.get(b("k")) == nil)
            try await client.ping()
        }
    }

    @Test("reply types: status, integer, null, bulk, array")
    func replyTypes() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            #expect(try await client.send([b("PING")]) == .status("PONG"))
            #expect(try await client.send([b("INCR"), b("n")]) == .integer(1))
            #expect(try await client.send([b("GET"), b("none")]) == .null)
            _ = try await client.send([b("RPUSH"), b("list"), b("a"), b(""), b("c")])
            #expect(try await client.send([b("LRANGE"), b("list"), b("0"), b("-1")]) == .array([.string(b("a")), .string([]), .string(b("c"))]))
            #expect(try await client.send([b("LRANGE"), b("nolist"), b("0"), b("-1")]) == .array([]))
        }
    }

    @Test("binary keys and values, and a 1 MB value")
    func binaryAndLarge() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client

            let key: [UInt8] = [0, 13, 10, 0xFF, 0x24, 0x2A, 0]
            let value = (0..<256).map { UInt8($0) } + [13, 10, 13, 10, 0]
            try await client.set(key, value)
            #expect(try await client.get(key) == value)
            #expect(try await client.get([0, 13, 10, 0xFF, 0x24, 0x2A]) == nil)

            var generator = SystemRandomNumberGenerator()
            let large = (0..<1_048_576).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try await client.set(b("large"), large)
            #expect(try await client.get(b("large")) == large)
            #expect(try await client.send([b("STRLEN"), b("large")]) == .integer(1_048_576))

            // Several large values in flight at once on every connection.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        let mine = large.map { $0 ^ UInt8(i) }
                        try await client.set(b("large-\(i)"), mine)
                        #expect(try await client.get(b("large-\(i)")) == mine)
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test("a server error names the command and never echoes its arguments")
    func serverErrors() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client

            let unknown = await redisError { try await client.send([b("NOSUCHCOMMAND"), b("top-secret-value")]) }
            #expect(unknown == .server("NOSUCHCOMMAND: ERR unknown command"))
            #expect(unknown?.serverErrorCode == "ERR")
            #expect(!(unknown?.description.contains("top-secret") ?? true))

            _ = try await client.send([b("RPUSH"), b("l"), b("x")])
            let wrongType = await redisError { try await client.get(b("l")) }
            #expect(wrongType?.serverErrorCode == "WRONGTYPE")
            #expect(wrongType?.description.hasPrefix("redis error: GET: WRONGTYPE") == true)

            let empty = await redisError { try await client.send([]) }
            #expect(empty == .protocolError)
        }
    }

    @Test("EVALSHA with a SCRIPT LOAD fallback after SCRIPT FLUSH")
    func scripts() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let script = RedisScript("redis.call('SET', KEYS[1], ARGV[1]); return redis.call('INCR', KEYS[2])")

            let loaded = try await client.send([b("SCRIPT"), b("LOAD"), b(script.source)])
            #expect(loaded.text == script.sha1)
            _ = try await client.send([b("SCRIPT"), b("FLUSH")])

            #expect(try await client.eval(script, keys: [b("a"), b("counter")], arguments: [b("one")]) == .integer(1))
            #expect(try await client.get(b("a")) == b("one"))
            #expect(try await client.eval(script, keys: [b("a"), b("counter")], arguments: [b("two")]) == .integer(2))

            _ = try await client.send([b("SCRIPT"), b("FLUSH")])
            #expect(try await client.eval(script, keys: [b("a"), b("counter")], arguments: [b("three")]) == .integer(3))
            #expect(try await client.get(b("a")) == b("three"))

            let failing = RedisScript("return redis.error_reply('CONFLICT version changed')")
            let error = await redisError { try await client.eval(failing) }
            #expect(error == .server("EVALSHA: CONFLICT version changed"))
            #expect(error?.serverErrorCode == "CONFLICT")
        }
    }

    @Test("SHA-1 of known inputs", arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func sha1(input: String, digest: String) {
        #expect(RedisScript(input).sha1 == digest)
    }
}
