import Testing
@testable import Configuration

@Suite("Command line")
struct CommandLineOptionsTests {
    @Test("accepted", arguments: [
        ([], CommandLineOptions()),
        (["--config", "/etc/bff.json"], CommandLineOptions(configFile: "/etc/bff.json")),
        (["--config=/etc/bff.json", "--check-config"], CommandLineOptions(configFile: "/etc/bff.json", checkConfig: true)),
        (["--check-config"], CommandLineOptions(checkConfig: true)),
        (["--help"], CommandLineOptions(showHelp: true)),
        (["--print-nginx-locations", "--config", "x.json"], CommandLineOptions(configFile: "x.json", printNginxLocations: true)),
        (["-h", "--config", "x.json"], CommandLineOptions(configFile: "x.json", showHelp: true)),
    ])
    func accepted(arguments: [String], expected: CommandLineOptions) throws {
        #expect(try CommandLineOptions.parse(arguments).get() == expected)
    }

    @Test("refused", arguments: [
        ["--config"], ["--config", "--check-config"], ["--config="], ["--config", "a", "--config", "b"],
        ["--check"], ["serve"], ["-c", "x"], ["--check-config", "--print-nginx-locations"], ["--print-nginx-location"],
    ])
    func refused(arguments: [String]) {
        #expect((try? CommandLineOptions.parse(arguments).get()) == nil)
    }

    @Test("help lists every setting with its JSON key and default")
    func help() {
        let text = CommandLineOptions.helpText
        #expect(text.hasPrefix("usage: modgud-bff"))
        #expect(text.contains("  --print-nginx-locations  "))
        for setting in SettingDefinition.all {
            #expect(text.contains("\(setting.name)  (\(setting.jsonKey))  default: \(setting.defaultValue.documentation)"))
        }
    }

    @Test("load takes the file from the options")
    func loadWithOptions() throws {
        let file = try TemporaryConfigFile(#"{"maxConnections": 7}"#)
        defer { file.remove() }
        let options = try CommandLineOptions.parse(["--config", file.path]).get()
        #expect(try ConfigLoader.load(options, environment: [:]).get().maxConnections == 7)
    }
}
