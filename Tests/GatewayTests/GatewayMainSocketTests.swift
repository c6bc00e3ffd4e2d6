import Foundation
import Testing

/// The real binary on a Unix socket: `--check-config` and the start log
/// carry the same-host caution, the start log names the socket, and the
/// socket file is gone after SIGTERM.
@Suite("modgud-bff on a Unix socket")
struct GatewayMainSocketTests {
    @Test func theSameHostCautionIsPrintedAndLoggedAndTheSocketGoesAtStop() async throws {
        let path = NSTemporaryDirectory() + "bff-main-\(UUID().uuidString.prefix(8)).sock"
        let environment = ["BFF_LISTEN": "unix:\(path)", "BFF_ADMIN_LISTEN": "127.0.0.1:0", "BFF_TRUSTED_PROXIES": "127.0.0.1"]
        let check = try await GatewayMainTests.run(["--check-config"], environment: environment)
        #expect(check.status == 0, "a caution is not a problem")
        #expect(check.stdout.contains("\ncaution: BFF_TRUSTED_PROXIES range 127.0.0.1/32 contains 127.0.0.1 while BFF_LISTEN is a Unix socket"),
                "\(check.stdout)")
        #expect(check.stdout.contains("BFF_LISTEN=unix:\(path)"))

        let started = try await GatewayMainTests.run([], environment: environment, signalAfter: 1.0)
        #expect(started.status == 0)
        let lines = started.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains(#""event":"config.caution""#) && $0.contains("BFF_TRUSTED_PROXIES range 127.0.0.1/32") },
                "\(started.stdout)")
        #expect(lines.contains { $0.contains(#""event":"gateway.started""#) && $0.contains("unix:\(path)") })
        #expect(!FileManager.default.fileExists(atPath: path), "the socket file is removed at shutdown")
    }

    @Test func aPathWhoseDirectoryIsMissingFailsTheCheck() async throws {
        let check = try await GatewayMainTests.run(["--check-config"], environment: ["BFF_LISTEN": "unix:/nonexistent-bff/public.sock"])
        #expect(check.status == 2)
        #expect(check.stderr.contains("BFF_LISTEN: the directory /nonexistent-bff of the socket does not exist"), "\(check.stderr)")
    }
}
