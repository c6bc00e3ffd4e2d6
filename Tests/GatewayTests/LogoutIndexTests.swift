import Testing
import Configuration
import Core
import Crypto
import Redis
import TestSupport
@testable import Gateway

/// `POST /bff/logout` and the per-user session index in Redis
/// (Docs/sessions.md, "Redis layout"): the index is
/// `bff:u:base64url(SHA-256("modgud-bff/user-index/v1" ‖ 0 ‖ sub))`, a
/// sorted set of store keys, and a record lives at `bff:s:<store key>`.
/// Read straight from Redis, not through the session manager.
@Suite("Logout and the user index", .serialized)
struct LogoutIndexTests {
    /// One user signed in from two browsers has two entries in one index.
    /// Logging out in one removes its entry as well as its record (an entry
    /// left behind would keep naming a dead session to "log out
    /// everywhere"); the other browser's entry and record stay, and that
    /// session keeps working, upstream token included. Its own logout then
    /// empties the index, and the key goes with its last member.
    @Test func logoutRemovesTheSessionsIndexEntryAndLeavesTheUsersOtherSession() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user)]
        })
        let laptop = harness.browser()
        let signedIn = try await SignInFlowTests.signInWithCode(harness, laptop)
        let sub = try #require(signedIn.json?["user"]?["sub"]?.stringValue)
        let laptopCookie = try #require(laptop.cookies["__Host-bff"])
        let index = Self.indexKey(subject: sub)
        let first = try await Self.members(harness, index)
        #expect(first.count == 1, "sign-in adds the session to its user's index")
        let laptopKey = try #require(first.first)
        #expect(try await Self.exists(harness, "bff:s:" + laptopKey), "the member is the record's store key")

        let phone = harness.browser()
        let again = try await SignInFlowTests.signInWithCode(harness, phone)
        #expect(again.json?["user"]?["sub"]?.stringValue == sub, "the same user, from another browser")
        let both = try await Self.members(harness, index)
        #expect(Set(both).count == 2)
        let phoneKey = try #require(both.first { $0 != laptopKey })
        var sidIndexes: [String] = []
        for browser in [laptop, phone] {
            let cookie = try #require(browser.cookies["__Host-bff"])
            let session = try #require(try await harness.service.sessions.load(cookieHeader: "__Host-bff=" + cookie))
            sidIndexes.append(Self.sidIndexKey(sid: try #require(session.data.sid, "the id_token's sid is kept")))
        }
        #expect(Set(try await Self.keys(harness, "bff:u:*")) == Set([index] + sidIndexes),
                "one index for the user and one per sid, under the documented names")

        #expect(try await laptop.post("/bff/logout").status == 204)
        #expect(try await Self.members(harness, index) == [phoneKey], "the laptop's entry is gone, the phone's stays")
        #expect(try await !Self.exists(harness, "bff:s:" + laptopKey), "the laptop's record is gone")
        #expect(try await Self.exists(harness, "bff:s:" + phoneKey), "the phone's record stays")
        #expect(try await Self.millisecondsToLive(harness, index) > 0, "the index still expires with its last member")

        let stale = harness.browser()
        stale.setCookie("__Host-bff", laptopCookie)
        #expect(try await stale.get("/bff/user").status == 401, "the laptop's cookie names no session")
        #expect(try await phone.get("/bff/user").status == 200, "the phone's session works")
        #expect(try await phone.get("/api/echo").status == 200)
        let token = try #require(upstream.requests.last?.bearer)
        #expect(try await ProxyTests.introspect(harness, token)["active"]?.boolValue == true,
                "the phone's token survived the laptop's revocations")

        #expect(try await phone.post("/bff/logout").status == 204)
        #expect(try await Self.members(harness, index).isEmpty)
        #expect(try await !Self.exists(harness, index), "the index key goes with its last member")
        #expect(try await !Self.exists(harness, "bff:s:" + phoneKey))
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Redis, read directly

    /// The index key of `subject`, computed here from the documented recipe.
    static func indexKey(subject: String) -> String {
        "bff:u:" + Base64URL.encode(SHA256.hash(Array("modgud-bff/user-index/v1".utf8) + [0] + Array(subject.utf8)))
    }

    static func sidIndexKey(sid: String) -> String {
        "bff:u:" + Base64URL.encode(SHA256.hash(Array("modgud-bff/sid-index/v1".utf8) + [0] + Array(sid.utf8)))
    }

    static func command(_ harness: GatewayHarness, _ arguments: String...) async throws -> RedisValue {
        try await harness.service.redis.send(arguments.map { Array($0.utf8) })
    }

    /// Every member of the sorted set `key`, whatever its score.
    static func members(_ harness: GatewayHarness, _ key: String) async throws -> [String] {
        try await command(harness, "ZRANGE", key, "0", "-1").array?.compactMap(\.text) ?? []
    }

    static func exists(_ harness: GatewayHarness, _ key: String) async throws -> Bool {
        try await command(harness, "EXISTS", key).integer == 1
    }

    static func keys(_ harness: GatewayHarness, _ pattern: String) async throws -> [String] {
        (try await command(harness, "KEYS", pattern).array?.compactMap(\.text) ?? []).sorted()
    }

    static func millisecondsToLive(_ harness: GatewayHarness, _ key: String) async throws -> Int {
        try await command(harness, "PTTL", key).integer ?? -3
    }
}
