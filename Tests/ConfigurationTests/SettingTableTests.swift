import Foundation
import Testing
import TestSupport
@testable import Configuration

@Suite("Settings table")
struct SettingTableTests {
    @Test("JSON keys are the names in lowerCamelCase", arguments: [
        ("BFF_MAX_HEADER_BYTES", "maxHeaderBytes"), ("BFF_LISTEN", "listen"), ("BFF_MODGUD_URL", "modgudUrl"),
        ("BFF_CLIENT_ID", "clientId"), ("BFF_HEADER_TIMEOUT_MS", "headerTimeoutMs"),
        ("BFF_TRUSTED_PROXIES", "trustedProxies"),
    ])
    func jsonKeys(name: String, key: String) throws {
        let setting = try #require(SettingDefinition.named(name))
        #expect(setting.jsonKey == key)
        #expect(SettingDefinition.forJSONKey(key) == setting)
    }

    @Test("names are unique, upper-case and documented")
    func rows() {
        let names = SettingDefinition.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(SettingDefinition.all.map(\.jsonKey)).count == names.count)
        for setting in SettingDefinition.all {
            #expect(setting.name.wholeMatch(of: /BFF_[A-Z0-9]+(_[A-Z0-9]+)*/) != nil)
            #expect(!setting.summary.isEmpty)
        }
        #expect(SettingDefinition.all.filter(\.isSecret).map(\.name) == ["BFF_CLIENT_SECRET", "BFF_M2M_CLIENT_SECRET"])
    }

    @Test("every integer default lies in its range")
    func integerDefaults() {
        for setting in SettingDefinition.all {
            guard case .integer(let range) = setting.kind, case .value(let text) = setting.defaultValue else { continue }
            #expect(Int(text).map(range.contains) == true, "\(setting.name)")
        }
    }

    @Test("each setting's own default, given explicitly, loads like nothing given")
    func explicitDefaults() throws {
        var environment: [String: String] = [:]
        for setting in SettingDefinition.all {
            if case .value(let text) = setting.defaultValue, !text.isEmpty { environment[setting.name] = text }
        }
        let explicit = try loadConfig(environment)
        let implicit = try loadConfig()
        #expect(explicit.description == implicit.description)
    }
}

@Suite("Documentation and examples stay in step with the table")
struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func read(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("Docs/configuration.md documents exactly the settings of the table")
    func reference() throws {
        let doc = try read("Docs/configuration.md")
        let mentioned = Set(doc.matches(of: /BFF_[A-Z0-9_]*[A-Z0-9]/).map { String($0.output) })
        let known = Set(SettingDefinition.all.map(\.name))
        #expect(mentioned.subtracting(known).isEmpty, "in the doc but not the table: \(mentioned.subtracting(known).sorted())")
        #expect(known.subtracting(mentioned).isEmpty, "in the table but not the doc: \(known.subtracting(mentioned).sorted())")
        let rows = doc.split(separator: "\n").filter { $0.hasPrefix("| `BFF_") }
        #expect(rows.count == SettingDefinition.all.count)
        for setting in SettingDefinition.all {
            let row = rows.first { $0.hasPrefix("| `\(setting.name)` |") }
            #expect(row?.contains("| `\(setting.jsonKey)` |") == true, "JSON key of \(setting.name)")
            #expect(row?.contains(setting.defaultValue.documentation) == true, "default of \(setting.name)")
        }
    }

    @Test("Config/modgud-bff.env.example names every setting and loads to the defaults")
    func envExample() throws {
        let text = try read("Config/modgud-bff.env.example")
        for setting in SettingDefinition.all {
            #expect(text.contains(setting.name + "="), "\(setting.name) missing")
        }
        // Read as systemd reads an EnvironmentFile (a shell reads it alike:
        // GatewayMainEnvFileTests).
        let environment = EnvironmentFile.systemd(text)
        #expect(environment["BFF_SCOPES"] == "openid profile email offline_access")
        #expect(try loadConfig(environment).description == loadConfig().description)
    }

    @Test("Config/modgud-bff.example.json loads, with the secrets and the CA file from the environment")
    func jsonExample() throws {
        let path = Self.root.appendingPathComponent("Config/modgud-bff.example.json").path
        // The example's CA file exists only where the gateway is deployed;
        // the loader reads it, so one that exists stands in for it.
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("modgud-ca-\(UUID().uuidString).pem").path
        try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: caFile))
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        let config = try loadConfig(["BFF_CLIENT_SECRET": "from-env", "BFF_M2M_CLIENT_SECRET": "m2m-from-env",
                                     "BFF_MODGUD_CA_FILE": caFile], file: path)
        #expect(config.routes.count == 4)
        #expect(config.publicOrigin.description == "https://app.example.com")
        #expect(config.client?.secret.revealed == "from-env")
        let keys = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let missing = Set(SettingDefinition.all.map(\.jsonKey)).subtracting(keys?.keys ?? [:].keys)
        #expect(missing == ["clientSecret", "m2mClientSecret"])
        #expect(config.machineClient?.secret.revealed == "m2m-from-env")
    }
}
