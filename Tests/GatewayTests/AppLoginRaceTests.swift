import Core
import Foundation
import HTTP
import Testing
import TestSupport
@testable import Gateway

/// One code, fifty redemptions at once on two gateway processes sharing
/// one Redis: the store's one `take` decides, so exactly one becomes a session.
@Suite("App hand-off: redemptions racing across instances", .serialized)
struct AppLoginRaceTests {
    @Test func fiftyRedemptionsOfOneCodeOnTwoInstancesMakeExactlyOneSession() async throws {
        let deployment = try await RaceDeployment.start(gateways: 2, settings: [
            "BFF_APP_CALLBACK_URI": AppLoginSupport.callback, "BFF_APP_LOGIN_SESSION_RATE": "off",
        ])
        let ports = deployment.gateways.map(\.publicPort)
        let simulator = deployment.simulator
        let browser = Browser(port: ports[0], origin: "http://localhost:8080")
        #expect(try await browser.post("/bff/otp/request", ["email": "ada@example.com"]).status == 200)
        let otp = try #require(simulator.mail(to: "ada@example.com").first?.code)
        try #require(try await browser.post("/bff/otp/redeem", ["email": "ada@example.com", "code": .string(otp)]).status == 200)
        let webView = Browser(port: ports[1], origin: "http://localhost:8080")
        let pair = AppLoginSupport.PKCEPair()
        let code = try await AppLoginSupport.handOff(browser, webView: webView, pair)

        let body = JSON.object(["code": .string(code), "codeVerifier": .string(pair.verifier)]).serialized
        let headers = [("X-CSRF", "1"), ("Origin", "http://localhost:8080"), ("Content-Type", "application/json")]
        let answers = try await withThrowingTaskGroup(of: RawResponse.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await LoopbackCall.send(port: ports[index % 2], "POST", "/bff/app-login/session", headers: headers, body: body)
                }
            }
            return try await group.reduce(into: [RawResponse]()) { $0.append($1) }
        }
        let won = answers.filter { $0.status == 200 }
        #expect(won.count == 1, "statuses: \(answers.map(\.status))")
        #expect(answers.filter { $0.status == 400 && $0.json?["error"]?.stringValue == "invalid_grant" }.count == 49)
        let cookie = try #require(won.first?.setCookies.first { $0.hasPrefix("__Host-bff=") }
            .map { String($0.dropFirst("__Host-bff=".count).prefix { $0 != ";" }) })
        for port in ports {
            let listed = try await LoopbackCall.send(port: port, "GET", "/bff/sessions",
                                                     headers: LoopbackCall.browserHeaders(cookie: cookie))
            #expect(listed.status == 200)
            #expect(listed.json?["sessions"]?.arrayValue?.count == 1, "exactly one session: the winner's")
        }
        await deployment.stop()
    }
}
