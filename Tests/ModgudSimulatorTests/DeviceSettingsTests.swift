import Core
import HTTP
@testable import ModgudSimulator
import Testing
import TestSupport

@Suite("Device settings: deviceCodeLifetimeSeconds and deviceCodeIntervalSeconds")
struct DeviceSettingsTests {
    @Test func defaultsAndTheirDescription() throws {
        let config = try SimulatorConfig.load(arguments: [], environment: [:]).get().config
        #expect(config.realm.deviceCodeLifetimeSeconds == 600)
        #expect(config.realm.deviceCodeIntervalSeconds == 5)
        #expect(config.json["realm"]?["deviceCodeLifetimeSeconds"] == 600)
        #expect(config.json["realm"]?["deviceCodeIntervalSeconds"] == 5)
        #expect(config.client("bff")?.holds(GrantType.deviceCode) == true)
        #expect(config.client("native")?.holds(GrantType.deviceCode) == false)
        #expect(SimulatorConfig.helpText.contains("--device-code-lifetime") && SimulatorConfig.helpText.contains("--device-code-interval"))
    }

    @Test func flagsVariablesAndJSONSetThem() throws {
        let flags = try SimulatorConfig.load(arguments: ["--device-code-lifetime", "30", "--device-code-interval=2"],
                                             environment: ["SIM_DEVICE_CODE_INTERVAL": "3"]).get().config
        #expect(flags.realm.deviceCodeLifetimeSeconds == 30)
        #expect(flags.realm.deviceCodeIntervalSeconds == 2, "the flag beats the variable")
        let variables = try SimulatorConfig.load(arguments: [], environment: ["SIM_DEVICE_CODE_LIFETIME": "90",
                                                                              "SIM_DEVICE_CODE_INTERVAL": "3"]).get().config
        #expect(variables.realm.deviceCodeLifetimeSeconds == 90 && variables.realm.deviceCodeIntervalSeconds == 3)
        var json = SimulatorConfig()
        #expect(json.apply(["realm": ["deviceCodeLifetimeSeconds": 120, "deviceCodeIntervalSeconds": 1]]).isEmpty)
        #expect(json.realm.deviceCodeLifetimeSeconds == 120 && json.realm.deviceCodeIntervalSeconds == 1)
        #expect(json.apply(["deviceCodeIntervalSeconds": 4]).isEmpty, "the flat name as well")
        #expect(json.realm.deviceCodeIntervalSeconds == 4)
    }

    @Test func badValuesAreReportedClearly() {
        guard case .failure(let problems) = SimulatorConfig.load(
            arguments: ["--device-code-interval", "0", "--device-code-lifetime", "soon"], environment: [:]) else {
            Issue.record("bad values accepted"); return
        }
        #expect(problems.messages.contains("--device-code-lifetime must be an integer"))
        #expect(problems.messages.contains("deviceCodeIntervalSeconds must be an integer ≥ 1"))
        var config = SimulatorConfig()
        let nested = config.apply(["realm": ["deviceCodeLifetimeSeconds": 0, "deviceCodeIntervalSeconds": "5"]])
        #expect(nested.messages.contains("realm.deviceCodeLifetimeSeconds must be an integer ≥ 1"))
        #expect(nested.messages.contains("realm.deviceCodeIntervalSeconds must be an integer ≥ 1"))
        guard case .failure(let inconsistent) = SimulatorConfig.load(
            arguments: ["--device-code-lifetime", "4", "--device-code-interval", "5"], environment: [:]) else {
            Issue.record("a lifetime shorter than the interval accepted"); return
        }
        #expect(inconsistent.messages.count == 1)
        #expect(inconsistent.messages.first?.hasPrefix("realm.deviceCodeLifetimeSeconds (4) must be at least realm.deviceCodeIntervalSeconds (5)") == true)
    }

    @Test func aRunningSimulatorTakesThemFromDevConfig() async throws {
        try await withSimulator { sim async throws in
            try await sim.config(["deviceCodeIntervalSeconds": 1, "realm": ["deviceCodeLifetimeSeconds": 42]])
            let started = try await sim.startDevice()
            #expect(try started.json()["interval"] == 1)
            #expect(try started.json()["expires_in"] == 42)
            let refused = try await sim.postJSON("/dev/config", ["deviceCodeLifetimeSeconds": 1, "deviceCodeIntervalSeconds": 2])
            #expect(refused.status == 400 && refused.error == "invalid_config")
            #expect(refused.bodyText.contains("must be at least"))
            #expect(try await sim.get("/dev/config").json()["realm"]?["deviceCodeLifetimeSeconds"] == 42, "all or nothing")
        }
    }
}
