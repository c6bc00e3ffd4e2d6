import Foundation
import Testing
import TestSupport
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

    /// Runs the binary (through `launcher`, a command that execs it, when
    /// given), spawned and reaped by `ChildProcess` with its output in
    /// files (Foundation's `Process.waitUntilExit` was seen to wait for ever
    /// on a child that had exited, with many children in the test process).
    /// The wait runs on a thread of its own: a test blocking the
    /// cooperative pool (two threads on two cores) stalls every gateway
    /// the other tests run in this process.
    static func run(_ arguments: [String], environment: [String: String] = [:], signalAfter: Double? = nil,
                    launcher: [String] = []) async throws -> Run {
        let command = launcher + [try GatewayProcess.binary()]   // built next to the tests
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BFF_") }
        env.merge(environment) { $1 }
        let directory = NSTemporaryDirectory() + "gateway-main-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let out = directory + "/stdout", err = directory + "/stderr"
        let pid = try ChildProcess.spawn(command + arguments, environment: env, output: out, errors: err)
        if let signalAfter {
            try? await Task.sleep(for: .seconds(signalAfter))
            kill(pid, SIGTERM)
        }
        let status = await blocking { ChildProcess.waitForExit(pid) }
        return Run(status: status, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                   stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    @Test func checkConfigAcceptsDefaultsAndRedactsSecrets() async throws {
        let run = try await Self.run(["--check-config"], environment: [
            "BFF_MODGUD_URL": "http://127.0.0.1:1", "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "very-secret-value",
        ])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("configuration ok"))
        #expect(run.stdout.contains("BFF_CLIENT_SECRET=<redacted>"))
        #expect(!(run.stdout + run.stderr).contains("very-secret-value"))
    }

    @Test func checkConfigPrintsCautions() async throws {
        let run = try await Self.run(["--check-config"], environment: [
            "BFF_MODGUD_URL": "http://127.0.0.1:1", "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "s",
            "BFF_SHUTDOWN_TIMEOUT_MS": "1000",
        ])
        #expect(run.status == 0, "a caution is not a problem")
        #expect(run.stdout.contains("\ncaution: BFF_SHUTDOWN_TIMEOUT_MS (1000) is below BFF_MODGUD_TIMEOUT_MS + 5000 (15000)"))
    }

    @Test func badSettingsAreAllReportedAndExitNonZero() async throws {
        let run = try await Self.run(["--check-config"], environment: [
            "BFF_LISTEN": "nowhere", "BFF_MAX_HEADER_BYTES": "-5", "BFF_TRUSTED_PROXIES": "10.0.0.0/99",
        ])
        #expect(run.status == 2)
        #expect(run.stderr.contains("BFF_LISTEN"))
        #expect(run.stderr.contains("BFF_MAX_HEADER_BYTES"))
        #expect(run.stderr.contains("BFF_TRUSTED_PROXIES"))
    }

    @Test func oneProblemIsHeadedOnceInTheSingular() async throws {
        let run = try await Self.run(["--check-config"], environment: ["BFF_LISTEN": "nowhere"])
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "modgud-bff: 1 configuration problem:", "\(run.stderr)")
        #expect(lines.count == 3 && lines[1].hasPrefix("  BFF_LISTEN: ") && lines[2].isEmpty, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func severalProblemsAreHeadedOnceInThePlural() async throws {
        let run = try await Self.run([], environment: ["BFF_LISTEN": "nowhere", "BFF_LOG_LEVEL": "verbose"])
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("modgud-bff: 2 configuration problems:\n  BFF_LISTEN: "), "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "configuration problem").count == 2, "one heading: \(run.stderr)")
        #expect(run.stderr.contains("\n  BFF_LOG_LEVEL: \"verbose\" must be one of debug, info, warning, error\n"))
    }

    @Test func unknownArgumentsAreRefused() async throws {
        let run = try await Self.run(["--frobnicate"])
        #expect(run.status == 2)
    }

    @Test func helpPrintsUsage() async throws {
        let run = try await Self.run(["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("--check-config"))
    }

    /// 2048 open files: room for 1024 connections beside the headroom, not
    /// the default 16384; the gateway lowers its cap and says why.
    @Test func aLowOpenFileLimitLowersTheConnectionCap() async throws {
        let run = try await Self.run([], environment: ["BFF_LISTEN": "127.0.0.1:0", "BFF_ADMIN_LISTEN": "127.0.0.1:0"],
                               signalAfter: 1.0, launcher: ["/usr/bin/prlimit", "--nofile=2048:2048"])
        #expect(run.status == 0)
        let caution = run.stdout.split(separator: "\n").first { $0.contains(#""event":"config.caution""#) }
        #expect(caution?.contains("the open-file limit (2048)") == true)
        #expect(caution?.contains("connections are capped at 1024") == true)
        #expect(run.stdout.contains(#""event":"gateway.started""#))
    }

    @Test func theStartLogNamesTheStaticRoot() async throws {
        let root = NSTemporaryDirectory()
        let run = try await Self.run([], environment: [
            "BFF_LISTEN": "127.0.0.1:0", "BFF_ADMIN_LISTEN": "127.0.0.1:0", "BFF_STATIC_ROOT": root,
        ], signalAfter: 1.0)
        #expect(run.status == 0)
        let started = run.stdout.split(separator: "\n").first { $0.contains(#""event":"gateway.started""#) }
        #expect(started?.contains(#""staticRoot":"\#(root)""#) == true, "\(started ?? "no gateway.started")")
    }

    @Test func startsAndStopsGracefullyOnSIGTERM() async throws {
        let run = try await Self.run([], environment: ["BFF_LISTEN": "127.0.0.1:0", "BFF_ADMIN_LISTEN": "127.0.0.1:0"], signalAfter: 1.0)
        #expect(run.status == 0)
        let started = run.stdout.split(separator: "\n").first { $0.contains(#""event":"gateway.started""#) }
        #expect(started?.contains(#""staticRoot":"off""#) == true, "\(started ?? "no gateway.started")")
        #expect(run.stdout.contains(#""event":"gateway.stopped""#))
    }
}
