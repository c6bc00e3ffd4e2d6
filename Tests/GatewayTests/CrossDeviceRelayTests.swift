import Core
import HTTP
import ModgudSimulator
import TestSupport
import Testing
@testable import Gateway

/// What Modgud says to the gateway's device calls reaches the browser as
/// the contract says (its 429 byte for byte), and no secret reaches a
/// browser or a log line.
@Suite("Cross-device sign-in: Modgud's answers and secrets", .serialized)
struct CrossDeviceRelayTests {
    @Test func modgudsThrottlingOfTheStartAndOfAPollIsRelayedByteForByte() async throws {
        let deployment = try await CrossDeviceDeployment.start(simulator: { sim in
            sim.rateLimits.policies[RateLimitPolicyName.oauthToken] = RateLimitPolicy([
                .client: RateLimitRule(limit: 1, windowSeconds: 600),
            ])
        })
        let screen = deployment.browser()
        let (id, _) = try await deployment.started(screen)
        let throttledPoll = try await deployment.poll(screen, id)
        let pollAnswer = try #require(deployment.front.deviceTokenCalls.last)
        #expect(pollAnswer.status == 429)
        Self.expectRelayed(throttledPoll, pollAnswer)
        #expect(throttledPoll.setCookie(named: "__Host-bff") == nil)

        let throttledStart = try await deployment.start(deployment.browser())
        let startAnswer = try #require(deployment.front.calls(to: "/connect/device").last)
        #expect(startAnswer.status == 429)
        Self.expectRelayed(throttledStart, startAnswer)
        #expect(throttledStart.setCookie(named: "__Host-bff-xd") == nil, "nothing started")
        #expect(deployment.metric("bff_cross_device_signins_total", #"outcome="rate_limited""#) == 2)
        #expect(deployment.metric("bff_cross_device_modgud_polls_total", #"answer="rate_limited""#) == 1)
        await deployment.stop()
    }

    static func expectRelayed(_ answer: RawResponse, _ modgud: DeviceFront.Call) {
        #expect(answer.status == 429)
        #expect(answer.body == modgud.answer, "the body byte for byte")
        #expect(answer.header("Retry-After") != nil && answer.header("Retry-After") == modgud.answerHeaders["Retry-After"])
        #expect(answer.header("Content-Type") == modgud.answerHeaders["Content-Type"])
    }

    @Test func aFailingModgudIs502ThenPacedAndADownStoreIs503() async throws {
        let deployment = try await CrossDeviceDeployment.start(interval: 30)
        let screen = deployment.browser()
        let (id, _) = try await deployment.started(screen)
        deployment.front.failTokens(with: 500)
        let failed = try await deployment.poll(screen, id)
        #expect(failed.status == 502 && failed.json?["error"]?.stringValue == "upstream_error")
        #expect(!failed.bodyText.contains("down"), "Modgud's text stays out")
        let paced = try await deployment.poll(screen, id)
        #expect(paced.status == 202, "the next call waits for the interval")
        #expect(deployment.front.deviceTokenCalls.count == 1)
        #expect(deployment.metric("bff_cross_device_modgud_polls_total", #"answer="error""#) == 1)

        await deployment.harness.redis.kill()
        for answer in [try await deployment.poll(screen, id), try await deployment.start(screen)] {
            #expect(answer.status == 503 && answer.json?["error"]?.stringValue == "store_unavailable")
            #expect(answer.header("Retry-After") != nil)
            #expect(answer.setCookie(named: "__Host-bff-xd") == nil)
        }
        await deployment.stop()
    }

    @Test func noSecretReachesABrowserOrALogLine() async throws {
        let deployment = try await CrossDeviceDeployment.start()
        let screen = deployment.browser(), stranger = deployment.browser()
        let (id, code) = try await deployment.started(screen)
        let xdCookie = try #require(screen.cookies["__Host-bff-xd"])
        _ = try await deployment.context(stranger, id)
        _ = try await deployment.poll(stranger, id)
        #expect(try await deployment.decide(code, action: "approve") == 200)
        #expect(try await deployment.pollWhilePending(screen, id).status == 200)
        let session = try #require(screen.cookies["__Host-bff"])

        let deviceCode = try #require(deployment.front.calls(to: "/connect/device").last?.answerJSON?["device_code"]?.stringValue)
        let tokens = try #require(deployment.front.deviceTokenCalls.last?.answerJSON)
        var secrets = [deviceCode, xdCookie, session]
        let tokenValues = try ["access_token", "refresh_token", "id_token"].map { try #require(tokens[$0]?.stringValue) }
        secrets += tokenValues
        let received = screen.received.withLock { $0 } + stranger.received.withLock { $0 }
        for response in received {
            // Cookies travel only in Set-Cookie; the device code and tokens nowhere.
            let headers = response.headers.filter { $0.0.lowercased() != "set-cookie" }.map { $0.0 + ": " + $0.1 }.joined(separator: "\n")
            for secret in secrets { #expect(!response.bodyText.contains(secret) && !headers.contains(secret)) }
            for secret in [deviceCode] + tokenValues { #expect(!response.setCookies.joined().contains(secret)) }
        }
        let logs = deployment.harness.logs.lines
        #expect(logs.contains { $0.contains("crossdevice.started") } && logs.contains { $0.contains("crossdevice.approved") })
        for line in logs {
            for secret in secrets + [code, id] { #expect(!line.contains(secret), "\(line.prefix(120))") }
        }
        await deployment.stop()
    }
}
