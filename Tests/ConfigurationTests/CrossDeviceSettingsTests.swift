import Testing
@testable import Configuration

@Suite("Cross-device settings")
struct CrossDeviceSettingsTests {
    @Test func offByDefaultAndReadWhenGiven() throws {
        #expect(try loadConfig().crossDevice == false)
        #expect(try loadConfig(["BFF_CROSS_DEVICE": "true"]).crossDevice)
        #expect(try loadConfig().redactedSummary().contains { $0.0 == "BFF_CROSS_DEVICE" && $0.1 == "false" })
    }

    @Test func aValueThatIsNotABooleanIsAProblem() throws {
        #expect(try loadProblems(["BFF_CROSS_DEVICE": "yes"]).map(\.setting) == ["BFF_CROSS_DEVICE"])
    }
}
