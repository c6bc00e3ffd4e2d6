import Testing
@testable import Configuration

@Suite("No secret in print")
struct RedactionTests {
    let secret = "s3cr3t-value"
    let redisPassword = "r3d1s-pw"

    @Test("description, summary and dump hide the secrets")
    func configPrint() throws {
        let config = try loadConfig(clientEnvironment.merging(["BFF_REDIS_URL": "redis://:\(redisPassword)@cache:6379/2"]) { $1 })
        let summary = Dictionary(uniqueKeysWithValues: config.redactedSummary())
        #expect(summary["BFF_CLIENT_SECRET"] == "<redacted>")
        #expect(summary["BFF_REDIS_URL"] == "redis://:<redacted>@cache:6379/2")
        #expect(summary["BFF_CLIENT_ID"] == "bff")
        var dumped = ""
        dump(config, to: &dumped)
        for text in [config.description, "\(config)", String(reflecting: config), dumped,
                     config.redactedSummary().map { "\($0) \($1)" }.joined()] {
            #expect(!text.contains(secret))
            #expect(!text.contains(redisPassword))
        }
        #expect(config.client?.description == "bff (secret <redacted>)")
    }

    @Test("the summary lists every setting of the table, in order")
    func summaryCoversTable() throws {
        let summary = try loadConfig().redactedSummary()
        #expect(summary.map(\.0) == SettingDefinition.all.map(\.name))
        #expect(!summary.contains { $0.1.contains("missing from the summary") })
        #expect(Dictionary(uniqueKeysWithValues: summary)["BFF_CLIENT_SECRET"] == "(not set)")
        #expect(Dictionary(uniqueKeysWithValues: summary)["BFF_HEADER_TIMEOUT_MS"] == "10000")
    }

    @Test("no error text ever contains a secret or a URL password")
    func errorsAreClean() throws {
        let marker = "hunter2"
        let environments: [[String: String]] = [
            ["BFF_CLIENT_SECRET": marker],
            ["BFF_CLIENT_SECRET": marker, "BFF_CLIENT_ID": ""],
            ["BFF_CLIENT_SECERT": marker],
            ["BFF_MODGUD_URL": "https://u:\(marker)@id.example.com/"],
            ["BFF_MODGUD_URL": "ftp://u:\(marker)@id/"],
            ["BFF_MODGUD_URL": "https://id.example.com/?token=\(marker)"],
            ["BFF_REDIS_URL": "redis://:\(marker)@host:0/0"],
            ["BFF_REDIS_URL": "redis://:\(marker)"],
            ["BFF_ROUTES": #"[{"prefix":"/a/","upstream":"https://x:\#(marker)@a/","token":"none"}]"#],
            ["BFF_ROUTES": #"[{"prefix":"/a/","upstream":"https://a/?k=\#(marker)","token":"none"}]"#],
        ]
        for environment in environments {
            let problems = try loadProblems(environment)
            #expect(!problems.isEmpty)
            #expect(!ConfigErrors(problems).description.contains(marker), "\(environment)")
        }
        let file = try TemporaryConfigFile(#"{"clientSecret": 12, "clientSecrett": "\#(marker)", "redisUrl": "redis://:\#(marker)@:1"}"#)
        defer { file.remove() }
        #expect(!ConfigErrors(try loadProblems(file: file.path)).description.contains(marker))
    }
}
