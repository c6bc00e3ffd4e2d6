import Testing
@testable import Configuration

/// Settings that pass validation but are risky where the gateway runs.
@Suite("Configuration cautions")
struct CautionTests {
    static let modgud = ["BFF_MODGUD_URL": "http://127.0.0.1:1", "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "s"]

    @Test("the defaults, with room for every connection, draw no caution")
    func defaultsAreQuiet() throws {
        let config = try loadConfig(Self.modgud)
        #expect(config.cautions(openFileLimit: 1 << 20).isEmpty)
        #expect(config.connectionCap(openFileLimit: 1 << 20) == config.maxConnections)
        #expect(config.connectionCap(openFileLimit: 0) == config.maxConnections, "an unknown limit changes nothing")
    }

    @Test("a drain shorter than a refresh at Modgud is a caution, only with Modgud configured")
    func shortDrain() throws {
        let short = try loadConfig(Self.modgud.merging(["BFF_SHUTDOWN_TIMEOUT_MS": "1000"]) { $1 })
        #expect(short.cautions(openFileLimit: 1 << 20).count == 1)
        #expect(short.cautions(openFileLimit: 1 << 20).first?.hasPrefix("BFF_SHUTDOWN_TIMEOUT_MS (1000) is below BFF_MODGUD_TIMEOUT_MS + 5000 (15000)") == true)
        let fitting = try loadConfig(Self.modgud.merging(["BFF_SHUTDOWN_TIMEOUT_MS": "6000", "BFF_MODGUD_TIMEOUT_MS": "1000"]) { $1 })
        #expect(fitting.cautions(openFileLimit: 1 << 20).isEmpty)
        #expect(try loadConfig(["BFF_SHUTDOWN_TIMEOUT_MS": "0"]).cautions(openFileLimit: 1 << 20).isEmpty)
    }

    @Test("an open-file limit too low for the cap lowers the cap and says so")
    func lowOpenFileLimit() throws {
        let config = try loadConfig(["BFF_MAX_CONNECTIONS": "16384"])
        // Room for the clients, not for an upstream connection each.
        let tight = config.cautions(openFileLimit: 20_000)
        #expect(tight.count == 1 && tight[0].hasPrefix("the open-file limit (20000) is below 2 × BFF_MAX_CONNECTIONS + 1024 (33792)"))
        #expect(!tight[0].contains("capped"))
        #expect(config.connectionCap(openFileLimit: 20_000) == 16384)
        // Not even room for the clients: the cap comes down.
        #expect(config.connectionCap(openFileLimit: 4096) == 3072)
        #expect(config.cautions(openFileLimit: 4096).first?.contains("connections are capped at 3072") == true)
        #expect(config.connectionCap(openFileLimit: 100) == 1)
    }
}
