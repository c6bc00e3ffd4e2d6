import Foundation
import Testing
@testable import Configuration

/// The same-host spoofing cautions of `--check-config` and the start log:
/// a trusted proxy range that holds an address every local client has.
@Suite("Trusted proxies on the same host")
struct ProxyTrustCautionTests {
    static func cautions(_ environment: [String: String]) throws -> [String] {
        try loadConfig(environment).cautions(openFileLimit: 1 << 20).filter { $0.hasPrefix("BFF_TRUSTED_PROXIES") }
    }

    @Test(arguments: [
        // The set-up: nginx and the gateway on one host, 127.0.0.1 trusted.
        (["BFF_TRUSTED_PROXIES": "127.0.0.1"], "range 127.0.0.1/32 contains 127.0.0.1, the address BFF_LISTEN (127.0.0.1:8080) is on"),
        (["BFF_TRUSTED_PROXIES": "127.0.0.0/8", "BFF_LISTEN": "127.0.0.5:8080"], "contains 127.0.0.5, the address BFF_LISTEN"),
        (["BFF_TRUSTED_PROXIES": "10.0.0.0/8", "BFF_LISTEN": "10.0.1.21:8080"], "contains 10.0.1.21, the address BFF_LISTEN"),
        (["BFF_TRUSTED_PROXIES": "::1", "BFF_LISTEN": "[::1]:8080"], "contains ::1, the address BFF_LISTEN"),
        (["BFF_TRUSTED_PROXIES": "127.0.0.1", "BFF_LISTEN": "127.0.0.2:8080"], "contains 127.0.0.1 while BFF_LISTEN (127.0.0.2:8080) takes connections from this host"),
        (["BFF_TRUSTED_PROXIES": "127.0.0.1", "BFF_LISTEN": "0.0.0.0:8080"], "contains 127.0.0.1 while BFF_LISTEN (0.0.0.0:8080)"),
        (["BFF_TRUSTED_PROXIES": "0.0.0.0/0", "BFF_LISTEN": "[::]:8080"], "contains 127.0.0.1 while BFF_LISTEN ([::]:8080)"),
        (["BFF_TRUSTED_PROXIES": "127.0.0.1", "BFF_LISTEN": "unix:/tmp/public.sock"], "contains 127.0.0.1 while BFF_LISTEN is a Unix socket"),
    ])
    func aRangeEveryLocalClientIsInIsACaution(environment: [String: String], text: String) throws {
        let cautions = try Self.cautions(environment)
        #expect(cautions.count == 1, "\(cautions)")
        #expect(cautions.first?.contains(text) == true, "\(cautions)")
        if environment["BFF_LISTEN"]?.hasPrefix("unix:") == true {
            #expect(cautions.first?.contains("a peer on the socket is the proxy already") == true)
        } else {
            #expect(cautions.first?.contains("BFF_LISTEN=unix:/run/modgud-bff/public.sock") == true, "names the socket")
            #expect(cautions.first?.contains("proxy_bind 127.0.0.2") == true, "names proxy_bind")
        }
    }

    @Test(arguments: [
        [String: String](),
        // nginx connects from a loopback address of its own.
        ["BFF_TRUSTED_PROXIES": "127.0.0.2/32"],
        ["BFF_TRUSTED_PROXIES": "127.0.0.2/32", "BFF_LISTEN": "0.0.0.0:8080"],
        // nginx on another host, the gateway on a private address.
        ["BFF_TRUSTED_PROXIES": "10.0.1.10", "BFF_LISTEN": "10.0.1.21:8080"],
        ["BFF_TRUSTED_PROXIES": "10.0.1.10,fd00::10", "BFF_LISTEN": "[::]:8080"],
        // The socket, with no range or a range of remote proxies before nginx.
        ["BFF_LISTEN": "unix:/tmp/public.sock"],
        ["BFF_LISTEN": "unix:/tmp/public.sock", "BFF_TRUSTED_PROXIES": "192.0.2.0/24"],
    ])
    func rangesNoLocalClientIsInAreQuiet(environment: [String: String]) throws {
        #expect(try Self.cautions(environment).isEmpty)
    }

    @Test func theForwardedHeaderIsNamedAsConfigured() throws {
        let cautions = try Self.cautions(["BFF_TRUSTED_PROXIES": "127.0.0.1", "BFF_FORWARDED_HEADER": "forwarded"])
        #expect(cautions.first?.contains("send its own Forwarded") == true, "\(cautions)")
    }
}
