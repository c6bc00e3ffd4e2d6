import Foundation
import Testing
@testable import Gateway

/// The executable end to end: `--check-config`, `--help`, bad settings, and
/// a real start and graceful stop on SIGTERM.
@Suite("modgud-bff executable", .serialized)
struct GatewayMainTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], environment: [String: String] = [:], signalAfter: Double? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try GatewayProcess.binary())   // built next to the tests
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BFF_") }
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        if let signalAfter {
            Thread.sleep(forTimeInterval: signalAfter)
            process.terminate() // SIGTERM
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func checkConfigAcceptsDefaultsAndRedactsSecrets() throws {
        let run = try Self.run(["--check-config"], environment: [
            "BFF_MODGUD_URL": "http://127.0.0.1:1", "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "very-secret-value",
        ])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("configuration ok"))
        #expect(run.stdout.contains("BFF_CLIENT_SECRET=<redacted>"))
        #expect(!(run.stdout + run.stderr).contains("very-secret-value"))
    }

    @Test func badSettingsAreAllReportedAndExitNonZero() throws {
        let run = try Self.run(["--check-config"], environment: [
            "BFF_LISTEN": "nowhere", "BFF_MAX_HEADER_BYTES": "-5", "BFF_TRUSTED_PROXIES": "10.0.0.0/99",
        ])
        #expect(run.status == 2)
        #expect(run.stderr.contains("BFF_LISTEN"))
        #expect(run.stderr.contains("BFF_MAX_HEADER_BYTES"))
        #expect(run.stderr.contains("BFF_TRUSTED_PROXIES"))
    }

    @Test func unknownArgumentsAreRefused() throws {
        let run = try Self.run(["--frobnicate"])
        #expect(run.status == 2)
    }

    @Test func helpPrintsUsage() throws {
        let run = try Self.run(["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("--check-config"))
    }

    @Test func startsAndStopsGracefullyOnSIGTERM() throws {
        let run = try Self.run([], environment: ["BFF_LISTEN": "127.0.0.1:0", "BFF_ADMIN_LISTEN": "127.0.0.1:0"], signalAfter: 1.0)
        #expect(run.status == 0)
        #expect(run.stdout.contains(#""event":"gateway.started""#))
        #expect(run.stdout.contains(#""event":"gateway.stopped""#))
    }
}
