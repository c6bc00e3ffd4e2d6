import Core
import System
@testable import Redis
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("AUTH, ACL users and database selection")
struct AuthTests {
    @Test("the right password connects; a wrong or missing one never becomes ready and says why")
    func password() async throws {
        try await withRedis(password: "s3cret-pw") { (redis: RedisFixture) async throws in
            let client = redis.client
            #expect(try await client.send([b("PING")]) == .status("PONG"))

            let wrong = redis.makeClient { $0.password = Secret("not-it") }
            #expect(await wrong.waitUntilReady(timeout: .milliseconds(500)) == false)
            #expect(!wrong.isReady)
            let failure = wrong.connections[0].lastFailure
            guard case .authentication(let text) = failure else {
                Issue.record("expected an authentication failure, got \(String(describing: failure))")
                return
            }
            #expect(text.hasPrefix("WRONGPASS"))
            #expect(!(wrong.lastFailureReason ?? "").contains("not-it"))
            #expect(await redisError { try await wrong.get(b("x")) } == .unavailable)
            await wrong.close()

            let none = redis.makeClient { $0.password = nil }
            #expect(await none.waitUntilReady(timeout: .milliseconds(500)) == false)
            guard case .handshake(let noauth) = none.connections[0].lastFailure else {
                Issue.record("expected a handshake failure")
                return
            }
            #expect(noauth.hasPrefix("NOAUTH"))
            await none.close()
        }
    }

    @Test("an ACL user authenticates with username and password")
    func aclUser() async throws {
        try await withRedis(password: "admin-pw") { (redis: RedisFixture) async throws in
            _ = try await redis.client.send([b("ACL"), b("SETUSER"), b("alice"), b("on"), b(">alice-pw"), b("~*"), b("&*"), b("+@all")])
            let alice = redis.makeClient {
                $0.username = "alice"
                $0.password = Secret("alice-pw")
            }
            #expect(await alice.waitUntilReady(timeout: .seconds(5)))
            #expect(try await alice.send([b("ACL"), b("WHOAMI")]).text == "alice")
            await alice.close()

            let mallory = redis.makeClient {
                $0.username = "alice"
                $0.password = Secret("admin-pw")
            }
            #expect(await mallory.waitUntilReady(timeout: .milliseconds(500)) == false)
            if case .authentication = mallory.connections[0].lastFailure {} else {
                Issue.record("expected an authentication failure")
            }
            await mallory.close()
        }
    }

    @Test("database index isolation, and a refused SELECT")
    func databases() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let db3 = redis.makeClient { $0.database = 3 }
            #expect(await db3.waitUntilReady(timeout: .seconds(5)))
            try await db3.set(b("only-in-3"), b("x"))
            #expect(try await db3.get(b("only-in-3")) == b("x"))
            #expect(try await client.get(b("only-in-3")) == nil)
            try await redis.client.set(b("only-in-0"), b("y"))
            #expect(try await db3.get(b("only-in-0")) == nil)
            await db3.close()

            let outOfRange = redis.makeClient { $0.database = 999 }
            #expect(await outOfRange.waitUntilReady(timeout: .milliseconds(500)) == false)
            if case .selectDatabase = outOfRange.connections[0].lastFailure {} else {
                Issue.record("expected a SELECT failure, got \(String(describing: outOfRange.connections[0].lastFailure))")
            }
            await outOfRange.close()
        }
    }

    @Test("localhost and host names are resolved off the loop")
    func hostNames() async throws {
        #expect(NameResolver.lookup("localhost") == .success(.v4(0x7F00_0001)))
        try await withRedis { (redis: RedisFixture) async throws in
            let local = redis.makeClient { $0.host = "localhost" }
            #expect(await local.waitUntilReady(timeout: .seconds(5)))
            await local.close()

            // The machine's own name usually maps to loopback in /etc/hosts.
            var buffer = [CChar](repeating: 0, count: 256)
            gethostname(&buffer, buffer.count)
            let hostname = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if NameResolver.lookup(hostname) == .success(.v4(0x7F00_0001)) {
                let named = redis.makeClient { $0.host = hostname }
                #expect(await named.waitUntilReady(timeout: .seconds(5)))
                await named.close()
            }

            let invalid = redis.makeClient { $0.host = "no-such-host.invalid" }
            let failed = await eventually(timeout: .seconds(10)) {
                if case .resolve = invalid.connections[0].lastFailure { return true }
                return false
            }
            #expect(failed)
            #expect(!invalid.isReady)
            await invalid.close()
        }
    }
}
