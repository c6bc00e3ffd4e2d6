import Foundation
import Testing
@testable import Gateway

/// The executable refuses a session cookie without `__Host-`, plain http
/// off the machine and TRACE/TRACK/CONNECT routes; their opt-outs are
/// cautions in `--check-config` and at every start.
@Suite("modgud-bff executable: exposure refusals", .serialized)
struct GatewayMainExposureTests {
    static let client = ["BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "very-secret-value"]

    @Test func checkConfigRefusesEveryExposureAtOnce() async throws {
        let run = try await GatewayMainTests.run(["--check-config"], environment: Self.client.merging([
            "BFF_SESSION_COOKIE": "sid", "BFF_MODGUD_URL": "http://modgud:5080",
            "BFF_ROUTES": #"[{"prefix":"/api/","upstream":"http://api.internal/","token":"user","methods":["TRACE"]}]"#,
        ]) { $1 })
        #expect(run.status == 2)
        for setting in ["BFF_SESSION_COOKIE: \"sid\" lacks the __Host- prefix", "BFF_MODGUD_URL: uses plain http to modgud",
                        "BFF_ROUTES[0].upstream: uses plain http to api.internal", "BFF_ROUTES[0].methods: \"TRACE\""] {
            #expect(run.stderr.contains(setting), "\(setting) in \(run.stderr)")
        }
        #expect(!(run.stdout + run.stderr).contains("very-secret-value"))
    }

    @Test func optOutsAreCautionsInCheckConfigAndAtStart() async throws {
        let environment = Self.client.merging([
            "BFF_SESSION_COOKIE": "sid", "BFF_ALLOW_INSECURE_COOKIE_NAME": "true",
            "BFF_MODGUD_URL": "http://modgud:5080", "BFF_ALLOW_HTTP_HOSTS": "modgud",
            "BFF_LISTEN": "127.0.0.1:0", "BFF_ADMIN_LISTEN": "127.0.0.1:0",
        ]) { $1 }
        let check = try await GatewayMainTests.run(["--check-config"], environment: environment)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("\ncaution: BFF_SESSION_COOKIE (sid) lacks the __Host- prefix"))
        #expect(check.stdout.contains("\ncaution: BFF_MODGUD_URL reaches modgud over plain http"))
        let started = try await GatewayMainTests.run([], environment: environment, signalAfter: 1.0)
        #expect(started.status == 0)
        let cautions = started.stdout.split(separator: "\n").filter { $0.contains(#""event":"config.caution""#) }
        #expect(cautions.contains { $0.contains("BFF_SESSION_COOKIE (sid) lacks the __Host- prefix") }, "\(started.stdout)")
        #expect(cautions.contains { $0.contains("BFF_MODGUD_URL reaches modgud over plain http") })
        #expect(!(started.stdout + started.stderr).contains("very-secret-value"))
    }
}
