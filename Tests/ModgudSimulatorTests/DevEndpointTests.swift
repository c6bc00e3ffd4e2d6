import Core
import HTTP
import TestSupport
@testable import ModgudSimulator
import Testing

@Suite("Dev endpoints")
struct DevEndpointTests {
    @Test func requestsAreRecordedWithoutSecrets() async throws {
        try await withSimulator { sim async throws in
            _ = try await sim.postJSON("/api/account/native/otp/request", ["Email": "ada@example.com"],
                                       headers: SimHarness.gateway("198.51.100.9") + [("Cookie", "a=b"), ("X-CSRF", "1")])
            _ = try await sim.postForm("/connect/token", [("grant_type", "refresh_token"), ("refresh_token", "secret-value")],
                                       headers: SimHarness.gateway() + [("Sec-Fetch-Mode", "cors")])
            let log = try await sim.get("/dev/requests")
            #expect(!log.bodyText.contains("bff-secret"))
            #expect(!log.bodyText.contains("secret-value"))
            #expect(!log.bodyText.contains("a=b"))
            let body = try log.json()
            #expect(body["total"] == 2)
            let first = try #require(body["requests"]?[0]), second = try #require(body["requests"]?[1])
            #expect(first["method"] == "POST")
            #expect(first["path"] == "/api/account/native/otp/request")
            #expect(first["status"] == 200)
            #expect(first["clientId"] == "bff")
            #expect(first["clientAuth"] == "basic")
            #expect(first["authorization"] == "basic")
            #expect(first["forwardedFor"] == "198.51.100.9")
            #expect(first["browserHeaders"] == ["Cookie", "X-CSRF"])
            #expect(second["grantType"] == "refresh_token")
            #expect(second["browserHeaders"] == ["Sec-Fetch-Mode"])
            let since = try await sim.get("/dev/requests?since=1").json()
            #expect(since["requests"]?.arrayValue?.count == 2, "the request log's own GET is recorded too")
            #expect(since["requests"]?[0]?["seq"] == 2)
        }
    }

    @Test func mailboxListsNewestFirst() async throws {
        try await withSimulator { sim async throws in
            let first = try await sim.requestCode("ada@example.com")
            let second = try await sim.requestCode("ada@example.com")
            let mails = try await sim.get("/dev/mailbox?email=ada@example.com").json().arrayValue ?? []
            #expect(mails.count == 2)
            #expect(mails[0]["code"]?.stringValue == second)
            #expect(mails[1]["code"]?.stringValue == first)
            #expect(mails[0]["to"] == "ada@example.com")
            #expect(mails[0]["sentAt"]?.stringValue?.hasSuffix("Z") == true)
        }
    }

    @Test func resetForgetsEverythingLearned() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("new@example.com")
            try await sim.config(["nativeGrants": false])
            #expect(try await sim.postJSON("/dev/reset", [:]).status == 200)
            #expect(try await sim.get("/dev/mailbox").bodyText == "[]")
            #expect(try await sim.get("/dev/users?email=new@example.com").status == 404)
            #expect(try await sim.get("/dev/users?email=ada@example.com").status == 200, "seeds come back")
            #expect(try await sim.refresh(try #require(tokens["refresh_token"]?.stringValue)).error == "invalid_grant")
            #expect(try await sim.get("/dev/config").json()["realm"]?["nativeGrants"] == true)
            #expect(try await sim.get("/dev/requests").json()["requests"]?[0]?["path"] == "/dev/reset")
        }
    }

    @Test func statsCountEndpointsGrantsAndTokens() async throws {
        try await withSimulator { sim async throws in
            let tokens = try await sim.signIn("ada@example.com")
            _ = try await sim.refresh(try #require(tokens["refresh_token"]?.stringValue))
            let stats = try await sim.stats()
            #expect(stats["endpoints"]?["POST /api/account/native/otp/request"] == 1)
            #expect(stats["endpoints"]?["POST /connect/token"] == 2)
            #expect(stats["grants"]?["urn:cocoar:otp"] == 1)
            #expect(stats["grants"]?["refresh_token"] == 1)
            #expect(stats["grantResults"]?["urn:cocoar:otp 200"] == 1)
            #expect(stats["refresh"]?["redemptions"] == 1)
            #expect(stats["tokens"]?["access"] == 2)
            #expect(stats["mail"]?["otp"] == 1)
            #expect(stats["statuses"]?["200"] != nil)
            #expect(stats["rateLimits"]?["requestsPerDimension"]?["source"] != nil)
            #expect(stats["rateLimits"]?["distinctKeys"]?["target"] == 1)
        }
    }

    @Test func usersAndTotp() async throws {
        try await withSimulator { sim async throws in
            let created = try await sim.postJSON("/dev/users", ["email": "tess@example.com", "firstName": "Tess",
                                                                "generateTotp": true])
            #expect(created.status == 201)
            let user = try created.json()
            let secret = try #require(user["totpSecret"]?.stringValue)
            // The code of the time step the request fell in: the one before
            // it or the one after, should the request cross a step's end.
            let key = try #require(Base32.decode(secret))
            let before = TOTP.code(secret: key, time: sim.simulator.core.state.now())
            let totp = try await sim.get("/dev/totp?email=tess@example.com").json()
            let after = TOTP.code(secret: key, time: sim.simulator.core.state.now())
            #expect(totp["code"]?.stringValue == before || totp["code"]?.stringValue == after)
            #expect(try await sim.get("/dev/totp?email=ada@example.com").status == 404)
            let updated = try await sim.postJSON("/dev/users", ["email": "tess@example.com", "lastName": "Ting"])
            #expect(updated.status == 200)
            #expect(try updated.json()["firstName"] == "Tess")
            #expect(try updated.json()["id"] == user["id"])
            #expect(try await sim.postJSON("/dev/users", ["firstName": "x"]).status == 400)
        }
    }

    @Test func configChangesAtRunTime() async throws {
        try await withSimulator { sim async throws in
            let changed = try await sim.postJSON("/dev/config", [
                "accessTokenLifetimeSeconds": 3, "refreshReuseLeewaySeconds": 5, "recentSignIn": true,
                "rateLimits": ["policies": ["native-otp": ["target": ["limit": 9, "windowSeconds": 60], "source": .null]]],
                "clients": [["id": "extra", "secret": "s", "grants": ["client_credentials"]]],
            ])
            #expect(changed.status == 200)
            let config = try changed.json()
            #expect(config["tokens"]?["accessTokenLifetimeSeconds"] == 3)
            #expect(config["tokens"]?["refreshReuseLeewaySeconds"] == 5)
            #expect(config["realm"]?["recentSignInRequired"] == true)
            #expect(config["rateLimits"]?["policies"]?["native-otp"]?["target"]?["limit"] == 9)
            #expect(config["rateLimits"]?["policies"]?["native-otp"]?["source"] == .null)
            #expect(!changed.bodyText.contains("bff-secret"))
            #expect(try await sim.signIn("ada@example.com")["expires_in"] == 3)
            let extra = try await sim.postForm("/connect/token", [("grant_type", "client_credentials")],
                                               headers: [SimHarness.basic("extra", "s")])
            #expect(extra.status == 200)

            let invalid = try await sim.postJSON("/dev/config", ["tokens": ["codeAttempts": 0], "pascalCase429": "yes",
                                                                 "clients": [["id": "mixed", "secret": "s",
                                                                              "grants": ["client_credentials", "urn:cocoar:otp"]]]])
            #expect(invalid.status == 400)
            #expect(try invalid.json()["problems"]?.arrayValue?.count == 3)
            #expect(try await sim.get("/dev/config").json()["tokens"]?["codeAttempts"] == 3, "all or nothing")
        }
    }

    @Test func faultsHitTheNextCalls() async throws {
        try await withSimulator { sim async throws in
            let armed = try await sim.postJSON("/dev/config", ["faults": [
                ["path": "/connect/token", "count": 2, "status": 503],
                ["path": "/.well-known/openid-configuration", "drop": true],
            ]])
            #expect(armed.status == 200)
            for _ in 0..<2 {
                let faulted = try await sim.postForm("/connect/token", [("grant_type", "refresh_token")], headers: SimHarness.gateway())
                #expect(faulted.status == 503)
            }
            #expect(try await sim.postForm("/connect/token", [("grant_type", "refresh_token")], headers: SimHarness.gateway()).status == 400)
            do {
                let dropped = try await sim.get("/.well-known/openid-configuration")
                #expect(dropped.body.count < 64, "the body is cut off")
            } catch HarnessError.noResponse {
                // The connection closed before a complete response: that is the point.
            }
            #expect(try await sim.get("/.well-known/openid-configuration").status == 200)

            _ = try await sim.postJSON("/dev/faults", ["path": "/api/app-info", "delayMs": 150])
            let clock = ContinuousClock(), started = clock.now
            #expect(try await sim.get("/api/app-info").status == 200)
            #expect(clock.now - started >= .milliseconds(150))
            #expect(try await sim.get("/dev/faults").json()["faults"] == [])
            #expect(try await sim.stats()["faults"]?["POST /connect/token"] == 2)
            #expect(try await sim.postJSON("/dev/faults", ["path": "/x"]).status == 400)
        }
    }

    @Test func devEndpointsCanBeSwitchedOff() async throws {
        try await withSimulator({ $0.devEndpoints = false }) { sim async throws in
            for path in ["/dev/mailbox", "/dev/stats", "/dev/config", "/dev"] {
                #expect(try await sim.get(path).status == 404)
            }
            #expect(try await sim.postJSON("/dev/reset", [:]).status == 404)
        }
    }

    @Test func clockMovesForward() async throws {
        try await withSimulator { sim async throws in
            let before = try await sim.get("/dev/clock").json()
            #expect(before["offsetSeconds"]?.doubleValue == 0)
            try await sim.advanceClock(90)
            #expect(try await sim.get("/dev/clock").json()["offsetSeconds"]?.doubleValue == 90)
        }
    }

    @Test func inProcessInspection() async throws {
        try await withSimulator { sim async throws in
            let mark = sim.simulator.lastRequestSeq
            let code = try await sim.requestCode("ada@example.com")
            #expect(sim.simulator.mail(to: "ada@example.com").first?.code == code)
            #expect(sim.simulator.requests(since: mark).first?["path"] == "/api/account/native/otp/request")
            #expect(sim.simulator.totpCode(for: "grace@example.com") == (try await sim.totp("grace@example.com")))
            #expect(sim.simulator.stats()["endpoints"]?["POST /api/account/native/otp/request"] == 1)
            sim.simulator.injectFault(path: "/api/app-info", .status(500))
            #expect(try await sim.get("/api/app-info").status == 500)
            sim.simulator.advanceClock(by: 5)
            #expect(try await sim.get("/dev/clock").json()["offsetSeconds"]?.doubleValue == 5)
            sim.simulator.reset()
            #expect(sim.simulator.mail(to: "ada@example.com").isEmpty)
        }
    }
}
