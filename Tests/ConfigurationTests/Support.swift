import Foundation
import Testing
@testable import Configuration

/// A JSON config file in a fresh temporary directory, removed by `remove()`.
struct TemporaryConfigFile {
    let path: String

    init(_ contents: String) throws {
        try self.init(bytes: Array(contents.utf8))
    }

    init(bytes: [UInt8]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bff-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("config.json").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func remove() { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
}

/// Loads and expects success.
func loadConfig(_ environment: [String: String] = [:], file: String? = nil,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> GatewayConfig {
    switch ConfigLoader.load(environment: environment, configFile: file) {
    case .success(let config): return config
    case .failure(let errors):
        Issue.record("unexpected problems:\n\(errors)", sourceLocation: sourceLocation)
        throw errors
    }
}

/// Loads and expects failure; returns the problems.
func loadProblems(_ environment: [String: String] = [:], file: String? = nil,
                  sourceLocation: SourceLocation = #_sourceLocation) throws -> [ConfigError] {
    switch ConfigLoader.load(environment: environment, configFile: file) {
    case .success(let config):
        Issue.record("expected problems, loaded:\n\(config)", sourceLocation: sourceLocation)
        throw ConfigErrors([])
    case .failure(let errors): return errors.errors
    }
}

/// The client settings a token-using route needs.
let clientEnvironment = [
    "BFF_MODGUD_URL": "https://id.example.com",
    "BFF_CLIENT_ID": "bff",
    "BFF_CLIENT_SECRET": "s3cr3t-value",
]

/// `clientEnvironment` plus the machine client that token `client` needs.
let machineEnvironment = clientEnvironment.merging(["BFF_M2M_CLIENT_ID": "bff-m2m", "BFF_M2M_CLIENT_SECRET": "m2m-s3cr3t"]) { $1 }
