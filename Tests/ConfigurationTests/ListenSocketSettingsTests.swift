import Foundation
import Testing
@testable import Configuration

/// `unix:` listeners and the mode and group of their socket files.
@Suite("Unix-domain socket listener settings")
struct ListenSocketSettingsTests {
    @Test(arguments: [
        ("unix:/run/modgud-bff/public.sock", "/run/modgud-bff/public.sock"),
        ("unix:/tmp/a.sock", "/tmp/a.sock"),
    ])
    func aUnixAddressNamesAnAbsolutePath(text: String, path: String) throws {
        let address = try #require(ListenAddress(text))
        #expect(address.socketPath == path)
        #expect(address.description == text)
        #expect(!address.isLoopback)
    }

    @Test(arguments: [
        ("unix:run/public.sock", "must be absolute"),
        ("unix:", "must be absolute"),
        ("unix:/run/../etc/public.sock", "without NUL or '..'"),
        ("unix:/run/modgud-bff/", "without NUL or '..'"),
        ("unix:/" + String(repeating: "s", count: 107), "at most 107 bytes (sun_path); this one has 108"),
    ])
    func badUnixAddressesAreRefused(text: String, problem: String) {
        guard case .failure(let refusal) = ListenAddress.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(refusal.message.contains(problem), "\(refusal.message)")
    }

    @Test func theLongestPathThatFitsIsAccepted() {
        #expect(ListenAddress("unix:/" + String(repeating: "s", count: 106)) != nil)
    }

    @Test func socketsConflictOnlyOnTheSamePath() throws {
        let a = try #require(ListenAddress("unix:/tmp/a.sock")), b = try #require(ListenAddress("unix:/tmp/b.sock"))
        let tcp = try #require(ListenAddress("127.0.0.1:0"))
        #expect(a.conflicts(with: a))
        #expect(!a.conflicts(with: b))
        #expect(!a.conflicts(with: tcp) && !tcp.conflicts(with: a))
    }

    @Test func modeAndGroupLoadWithTheirDefaults() throws {
        let directory = NSTemporaryDirectory()
        let defaults = try loadConfig(["BFF_LISTEN": "unix:\(directory)/public.sock"])
        #expect(defaults.listen.socketPath == "\(directory)/public.sock")
        #expect(defaults.listenMode == 0o660)
        #expect(defaults.listenGroup == nil)
        let set = try loadConfig(["BFF_LISTEN": "unix:\(directory)/public.sock", "BFF_LISTEN_MODE": "0600",
                                  "BFF_LISTEN_GROUP": "root", "BFF_ADMIN_LISTEN": "unix:\(directory)/admin.sock"])
        #expect(set.listenMode == 0o600)
        #expect(set.listenGroup == "root")
        #expect(set.adminListen.socketPath == "\(directory)/admin.sock")
        let summary = Dictionary(uniqueKeysWithValues: set.redactedSummary())
        #expect(summary["BFF_LISTEN"] == "unix:\(directory)/public.sock")
        #expect(summary["BFF_LISTEN_MODE"] == "0600")
        #expect(summary["BFF_LISTEN_GROUP"] == "root")
        #expect(try loadConfig(["BFF_LISTEN_GROUP": "0"]).listenGroup == "0", "a group id")
    }

    @Test(arguments: [
        (["BFF_LISTEN_MODE": "0999"], "BFF_LISTEN_MODE", "octal permission bits"),
        (["BFF_LISTEN_MODE": "1777"], "BFF_LISTEN_MODE", "octal permission bits"),
        (["BFF_LISTEN_MODE": "0444"], "BFF_LISTEN_MODE", "must let the owner write"),
        (["BFF_LISTEN_GROUP": "no-such-group-bff"], "BFF_LISTEN_GROUP", "names no group"),
        (["BFF_LISTEN": "unix:/nonexistent-bff-dir/public.sock"], "BFF_LISTEN", "the directory /nonexistent-bff-dir"),
        (["BFF_ADMIN_LISTEN": "unix:/nonexistent-bff-dir/admin.sock"], "BFF_ADMIN_LISTEN", "does not exist"),
        (["BFF_LISTEN": "unix:/tmp/x.sock", "BFF_ADMIN_LISTEN": "unix:/tmp/x.sock"], "BFF_ADMIN_LISTEN", "BFF_LISTEN"),
    ])
    func badSettingsAreReported(environment: [String: String], setting: String, text: String) {
        guard case .failure(let errors) = ConfigLoader.load(environment: environment, configFile: nil) else {
            Issue.record("\(environment) was accepted")
            return
        }
        let description = String(describing: errors)
        #expect(description.contains(setting) && description.contains(text), "\(description)")
    }
}
