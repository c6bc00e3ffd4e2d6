import Core
import HTTP
import TestSupport
@testable import ModgudSimulator
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Configuration: flags, SIM_* variables, JSON file")
struct ConfigurationTests {
    @Test func defaultsMatchTheBrief() throws {
        let config = try SimulatorConfig.load(arguments: [], environment: [:]).get().config
        #expect(config.listen.description == "127.0.0.1:5080")
        #expect(config.devEndpoints)
        #expect(config.tokens.refreshReuseLeewaySeconds == 0)
        #expect(config.jitter.minMs == 100 && config.jitter.maxMs == 300)
        let bff = try #require(config.client("bff"))
        #expect(bff.secret == "bff-secret")
        #expect(bff.isTrustedForwarder)
        #expect(bff.rpId == "localhost")
        #expect(bff.origins.contains("http://localhost:8080"))
        #expect(!bff.holds(GrantType.clientCredentials))
        #expect(config.client("bff-m2m")?.grants == [GrantType.clientCredentials])
        #expect(config.client("native")?.isConfidential == false)
    }

    @Test func frontEndOriginsRegisterTheCallbackPostLogoutAndBackchannelURIs() throws {
        let bff = try #require(SimulatorConfig.load(arguments: [], environment: [:]).get().config.client("bff"))
        #expect(bff.backchannelLogoutUri == "http://localhost:8080/bff/backchannel-logout")

        let origins = "http://localhost:9001, http://localhost:9002"
        let config = try SimulatorConfig.load(arguments: ["--bff-origins", origins], environment: [:]).get().config
        let added = try #require(config.client("bff"))
        for origin in ["http://localhost:9001", "http://localhost:9002"] {
            #expect(added.origins.contains(origin))
            #expect(added.redirectUris.contains(origin + "/bff/callback"))
            #expect(added.postLogoutRedirectUris.contains(origin + "/"))
        }
        #expect(added.backchannelLogoutUri == "http://localhost:9001/bff/backchannel-logout")

        let chosen = try SimulatorConfig.load(arguments: ["--bff-origins", origins],
                                              environment: ["SIM_BFF_BACKCHANNEL_URI": "http://127.0.0.1:7000/bc"]).get().config
        #expect(chosen.client("bff")?.backchannelLogoutUri == "http://127.0.0.1:7000/bc")
    }

    @Test func flagsBeatVariablesWhichBeatTheFile() throws {
        let path = "/tmp/modgud-sim-config-\(getpid())-\(Int.random(in: 0..<1_000_000)).json"
        let file = #"""
        {"listen": "127.0.0.1:6000", "publicUrl": "https://auth.example.com/", "jitter": {"minMs": 5, "maxMs": 9},
         "realm": {"selfRegistration": "ExplicitEndpoint", "registrationFields": {"firstname": "Required"}},
         "rateLimits": {"mode": "log-only", "allowlist": ["10.0.0.0/8"],
                        "policies": {"magic-link": {"target": {"limit": 2, "windowSeconds": 60}}}},
         "clients": [{"id": "bff", "origins": ["https://app.example.com"]}, {"id": "spa", "grants": ["urn:cocoar:otp"]}],
         "users": [{"email": "zoe@example.com", "totpSecret": "JBSWY3DPEHPK3PXP"}]}
        """#
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = file.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        defer { unlink(path) }
        let loaded = SimulatorConfig.load(arguments: ["--listen", "127.0.0.1:7000", "--no-dev", "--refresh-leeway=30"],
                                          environment: ["SIM_CONFIG": path, "SIM_LISTEN": "127.0.0.1:6500",
                                                        "SIM_JITTER_MS": "0", "SIM_BFF_ORIGINS": "http://localhost:3000"])
        let config = try loaded.get().config
        #expect(config.listen.description == "127.0.0.1:7000")
        #expect(config.publicURL == "https://auth.example.com")
        #expect(config.jitter.maxMs == 0)
        #expect(!config.devEndpoints)
        #expect(config.tokens.refreshReuseLeewaySeconds == 30)
        #expect(config.realm.selfRegistration == .explicitEndpoint)
        #expect(config.realm.registrationFields.firstname == .required)
        #expect(config.rateLimits.mode == .logOnly)
        #expect(config.rateLimits.allowlist.first?.description == "10.0.0.0/8")
        #expect(config.rateLimits.policies["magic-link"]?.rules[.target] == RateLimitRule(limit: 2, windowSeconds: 60))
        #expect(config.rateLimits.policies["magic-link"]?.rules[.source] != nil, "other dimensions keep their defaults")
        #expect(config.client("bff")?.origins == ["https://app.example.com", "http://localhost:3000"])
        #expect(config.client("bff")?.secret == "bff-secret", "a partial client keeps what it does not name")
        #expect(config.client("spa")?.isConfidential == false)
        #expect(config.users.contains { $0.email == "zoe@example.com" && $0.totpSecret != nil })
    }

    @Test func everyProblemIsReportedAtOnce() {
        let result = SimulatorConfig.load(arguments: ["--listen", "nowhere", "--loops", "x", "--bogus"],
                                          environment: ["SIM_PASCAL_CASE_429": "maybe", "SIM_CONFIG": "/nonexistent/sim.json"])
        guard case .failure(let problems) = result else {
            Issue.record("expected problems")
            return
        }
        #expect(problems.messages.count == 5, "\(problems.messages)")
    }

    @Test func helpAndPrintConfig() throws {
        #expect(try SimulatorConfig.load(arguments: ["--help"], environment: [:]).get().showHelp)
        #expect(try SimulatorConfig.load(arguments: ["--print-config"], environment: [:]).get().printConfig)
        #expect(SimulatorConfig.helpText.contains("NEVER for production"))
    }

    @Test func theConfigRoundTripsThroughItsJSON() throws {
        var config = SimulatorConfig()
        config.rateLimits.policies["native-otp"]?.sourceRegistration = RateLimitRule(limit: 10, windowSeconds: 3600)
        var copy = SimulatorConfig()
        #expect(copy.apply(config.json).isEmpty)
        #expect(copy.rateLimits == config.rateLimits)
        #expect(copy.realm == config.realm)
        #expect(copy.tokens == config.tokens)
    }
}
