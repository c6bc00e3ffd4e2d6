import Testing
@testable import Configuration

@Suite("Limit settings: body rate, proxy body limit, per-address cap")
struct LimitSettingsTests {
    @Test("the defaults: 500 B/s after 20 s, 10 MiB per proxied body, 256 per address")
    func defaults() throws {
        let config = try loadConfig()
        #expect(config.bodyMinRate == 500)
        #expect(config.bodyRateGrace == .seconds(20))
        #expect(config.proxyMaxBodyBytes == 10_485_760)
        #expect(config.maxConnectionsPerAddress == 256)
    }

    @Test("each is read, and 0 turns the rate and the cap off")
    func given() throws {
        let config = try loadConfig(["BFF_BODY_MIN_RATE": "0", "BFF_BODY_RATE_GRACE_MS": "1500",
                                     "BFF_PROXY_MAX_BODY_BYTES": "0", "BFF_MAX_CONNECTIONS_PER_ADDRESS": "0"])
        #expect(config.bodyMinRate == 0)
        #expect(config.bodyRateGrace == .milliseconds(1500))
        #expect(config.proxyMaxBodyBytes == 0)
        #expect(config.maxConnectionsPerAddress == 0)
    }

    @Test("out of range is a problem naming the setting")
    func outOfRange() throws {
        let problems = try loadProblems(["BFF_BODY_MIN_RATE": "-1", "BFF_BODY_RATE_GRACE_MS": "99",
                                         "BFF_PROXY_MAX_BODY_BYTES": "1099511627777",
                                         "BFF_MAX_CONNECTIONS_PER_ADDRESS": "1048577"])
        #expect(Set(problems.map(\.setting)) == ["BFF_BODY_MIN_RATE", "BFF_BODY_RATE_GRACE_MS", "BFF_PROXY_MAX_BODY_BYTES",
                                                 "BFF_MAX_CONNECTIONS_PER_ADDRESS"])
    }
}
