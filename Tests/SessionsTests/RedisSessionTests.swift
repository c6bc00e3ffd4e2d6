import Core
import Crypto
import Redis
import Sessions
import SessionsRedis
import Testing

/// What the session layer leaves in a real Redis: the layout, the TTLs,
/// and nothing that could be used or read by whoever steals a dump.
@Suite("Sessions in Redis")
struct RedisSessionTests {
    /// Every key and every field/member/value in the server.
    static func dump(_ harness: RedisHarness) async throws -> [(key: String, type: String, content: [[UInt8]])] {
        var entries: [(key: String, type: String, content: [[UInt8]])] = []
        var cursor = "0"
        repeat {
            let reply = try #require(try await harness.command("SCAN", cursor, "COUNT", "1000").array)
            cursor = try #require(reply[0].text)
            for key in try #require(reply[1].array).compactMap(\.text) {
                let type = try #require(try await harness.command("TYPE", key).text)
                let content: RedisValue = switch type {
                case "hash": try await harness.command("HGETALL", key)
                case "zset": try await harness.command("ZRANGE", key, "0", "-1", "WITHSCORES")
                case "string": .array([try await harness.command("GET", key)])
                default: .array([])
                }
                entries.append((key, type, (content.array ?? []).compactMap(\.bytes)))
            }
        } while cursor != "0"
        return entries
    }

    @Test func aDumpRevealsNoTokenCookieClaimOrSubject() async throws {
        try await withRedis { harness in
            let manager = SessionManager(store: harness.store)
            var secrets: [[UInt8]] = []
            for subject in ["alice@example.com", "bob-7f3a", "3f0c9a52-6e1d-4b7a-9c1e-8d2f4a6b7c90"] {
                let data = Fixtures.data(subject: subject)
                let (session, setCookie) = try await manager.create(data, replacing: nil, device: "Firefox on Linux",
                                                                    address: "192.0.2.55")
                let cookie = Fixtures.cookieValue(setCookie)
                secrets += Fixtures.sensitiveValues(of: data)
                // The card: its handle and facts are sealed, never in a key name or in clear.
                secrets += try await manager.sessions(of: session).map { Array($0.handle.utf8) }
                secrets += [Array("Firefox on Linux".utf8), Array("192.0.2.55".utf8)]
                secrets += [Array(cookie.utf8), try #require(Base64URL.decode(cookie))]
                _ = try #require(try await harness.store.acquireLock(session.lockName, lease: .seconds(30)))
            }
            let flowState = FlowState(
                grant: "urn:cocoar:passkey", ceremonyID: Secret("ceremony-secret-1"),
                mfaToken: Secret("mfa-token-secret-1"), values: ["nonce": Secret("nonce-secret-1")])
            let flowCookie = Fixtures.cookieValue(try await manager.beginFlow(flowState, replacing: nil))
            secrets += ["ceremony-secret-1", "mfa-token-secret-1", "nonce-secret-1", "urn:cocoar:passkey", flowCookie]
                .map { Array($0.utf8) }

            let entries = try await Self.dump(harness)
            // 3 records, 3 cards, 3 locks, 3 user indexes, 3 sid indexes, 1 flow
            #expect(entries.count == 16)
            #expect(entries.filter { $0.key.hasPrefix("bff:s:card:") }.count == 3)
            var everything: [UInt8] = []
            for entry in entries {
                #expect(["bff:s:", "bff:l:", "bff:u:"].contains { entry.key.hasPrefix($0) }, "\(entry.key)")
                everything += Array(entry.key.utf8) + [0]
                for item in entry.content { everything += item + [0] }
            }
            print("redis dump: \(entries.count) keys, \(everything.count) bytes; layout: "
                  + Set(entries.map { "\($0.key.prefix(6))… \($0.type)" }).sorted().joined(separator: ", "))
            for secret in secrets {
                #expect(!everything.contains(bytes: secret), "a secret of \(secret.count) bytes is in the dump")
            }
        }
    }

    @Test func aRecordTamperedInRedisIsRefused() async throws {
        try await withRedis { harness in
            let manager = SessionManager(store: harness.store)
            let (a, aCookie) = try await manager.create(Fixtures.data(subject: "alice"), replacing: nil)
            let (b, bCookie) = try await manager.create(Fixtures.data(subject: "bob"), replacing: nil)
            let keyA = "bff:s:" + a.lockName, keyB = "bff:s:" + b.lockName
            let original = try #require(try await harness.command("HGET", keyA, "d").bytes)
            let headerA = Fixtures.cookieHeader(aCookie), headerB = Fixtures.cookieHeader(bCookie)

            func expectTampered(_ what: String, _ header: String) async throws {
                guard case .tampered = try await manager.lookup(cookieHeader: header) else {
                    Issue.record("\(what): the record was not refused")
                    return
                }
            }
            var flipped = original
            flipped[40] ^= 0x80
            _ = try await harness.client.send([raw("HSET"), raw(keyA), raw("d"), flipped])
            try await expectTampered("flipped byte", headerA)
            _ = try await harness.client.send([raw("HSET"), raw(keyA), raw("d"), Array(original.dropLast(1))])
            try await expectTampered("truncated", headerA)
            _ = try await harness.client.send([raw("HSET"), raw(keyA), raw("d"), Array(original.prefix(12))])
            try await expectTampered("cut to the nonce", headerA)
            _ = try await harness.client.send([raw("HSET"), raw(keyA), raw("d"), original])
            _ = try await harness.command("HSET", keyA, "v", "2")
            try await expectTampered("version bumped", headerA)
            _ = try await harness.command("HSET", keyA, "v", "1")
            _ = try await harness.command("HINCRBY", keyA, "x", "3600000")
            try await expectTampered("expiry extended", headerA)
            _ = try await harness.command("HINCRBY", keyA, "x", "-3600000")
            #expect(try await manager.load(cookieHeader: headerA)?.data.subject == "alice")

            // Swap the two sessions' records: neither opens under the other's cookie.
            _ = try await harness.command("RENAME", keyA, "tmp")
            _ = try await harness.command("RENAME", keyB, keyA)
            _ = try await harness.command("RENAME", "tmp", keyB)
            try await expectTampered("swapped into alice's key", headerA)
            try await expectTampered("swapped into bob's key", headerB)
        }
    }

    @Test func redisTTLsFollowTheIdleAndAbsoluteTimeouts() async throws {
        try await withRedis { harness in
            let manager = SessionManager(store: harness.store)
            let idle: Int64 = 30 * 60 * 1000
            let (session, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
            let key = "bff:s:" + session.lockName
            let index = "bff:u:" + SessionManager.userIndexForTests(session.data.subject)
            let afterCreate = try #require(try await harness.command("PTTL", key).integer)
            #expect(afterCreate > 0 && afterCreate <= idle)
            _ = try await harness.command("PEXPIRE", key, "1000")  // pretend the session sat idle
            _ = try #require(try await manager.load(cookieHeader: Fixtures.cookieHeader(setCookie)))
            let afterLoad = try #require(try await harness.command("PTTL", key).integer)
            let absoluteLeft = Int64(session.absoluteExpiresAt) - Int64(SystemUnixClock().unixMilliseconds())
            #expect(afterLoad > idle - 5_000)
            #expect(afterLoad <= idle)
            #expect(Int64(afterLoad) <= absoluteLeft)
            let indexTTL = try #require(try await harness.command("PTTL", index).integer)
            #expect(indexTTL > idle && Int64(indexTTL) <= absoluteLeft + 1_000)  // set a few ms after the record

            // A refresh token that lives 10 minutes caps everything at 10 minutes.
            let now = SystemUnixClock().unixMilliseconds()
            let shortData = Fixtures.data(refreshExpiresAt: now + 600_000)
            let (short, shortCookie) = try await manager.create(shortData, replacing: nil)
            _ = try #require(try await manager.load(cookieHeader: Fixtures.cookieHeader(shortCookie)))
            let shortTTL = try #require(try await harness.command("PTTL", "bff:s:" + short.lockName).integer)
            #expect(shortTTL > 0 && shortTTL <= 600_000)
            #expect(shortCookie.revealed.contains("; Max-Age=600;") || shortCookie.revealed.contains("; Max-Age=599;"))
        }
    }

    @Test func theKeyPrefixIsConfigurableAndARecordCostsLittle() async throws {
        try await withRedis(keyPrefix: "tenant1:") { harness in
            let manager = SessionManager(store: harness.store)
            let (session, _) = try await manager.create(Fixtures.data(), replacing: nil, device: "Chrome on macOS",
                                                        address: "2001:db8:85a3::8a2e:370:7334")
            let keys = try #require(try await harness.command("KEYS", "*").array).compactMap(\.text).sorted()
            // The record, its card, the user index and the sid index.
            #expect(keys.count == 4 && keys.allSatisfy { $0.hasPrefix("tenant1:s:") || $0.hasPrefix("tenant1:u:") })
            let card = "tenant1:s:card:" + session.lockName
            let cardSealed = try #require(try await harness.command("HSTRLEN", card, "d").integer)
            let cardMemory = try #require(try await harness.command("MEMORY", "USAGE", card).integer)
            print("redis card: \(cardSealed) sealed bytes in field d, MEMORY USAGE \(cardMemory) bytes")
            #expect(cardSealed <= 512)
            let key = "tenant1:s:" + session.lockName
            let sealed = try #require(try await harness.command("HSTRLEN", key, "d").integer)
            let memory = try #require(try await harness.command("MEMORY", "USAGE", key).integer)
            print("redis record: \(sealed) sealed bytes in field d, MEMORY USAGE \(memory) bytes")
            #expect(sealed <= 2048)
        }
    }
}

/// Bytes of a string.
func raw(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Runs `body` with a fresh Redis harness, always shutting it down.
func withRedis<T>(keyPrefix: String = "bff:", _ body: (RedisHarness) async throws -> T) async throws -> T {
    let harness = try await RedisHarness.start(keyPrefix: keyPrefix)
    do {
        let result = try await body(harness)
        await harness.shutdown()
        return result
    } catch {
        await harness.shutdown()
        throw error
    }
}
