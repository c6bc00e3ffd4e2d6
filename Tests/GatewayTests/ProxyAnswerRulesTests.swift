import Testing
import Foundation
import Configuration
import Core
import HTTP
import TestSupport
@testable import Gateway

/// What the proxy changes in an upstream's answer beyond the hop-by-hop
/// fields (Docs/proxy.md, "What the browser receives"): an answer on a
/// route that may carry a session is kept out of shared caches, and the
/// upstream's own absolute URLs in `Location` and `Content-Location` are
/// moved to the public origin.
@Suite("API proxy: answer rules", .serialized)
struct ProxyAnswerRulesTests {
    /// An upstream's caching fields, and what the browser must get.
    struct CacheCase: Sendable, CustomTestStringConvertible {
        var upstream: [(String, String)]
        var cacheControl: [String]
        var vary: [String]
        var testDescription: String { upstream.map { "\($0.0): \($0.1)" }.joined(separator: " | ") }
    }

    static let personalCases: [CacheCase] = [
        CacheCase(upstream: [("Cache-Control", "public, max-age=60, s-maxage=600")], cacheControl: ["private, max-age=60"],
                  vary: ["Cookie"]),
        CacheCase(upstream: [("Cache-Control", "no-store")], cacheControl: ["private, no-store"], vary: ["Cookie"]),
        CacheCase(upstream: [], cacheControl: ["private"], vary: ["Cookie"]),
        CacheCase(upstream: [("Cache-Control", #"private="Set-Cookie, X-A", max-age=5"#), ("Vary", "Accept")],
                  cacheControl: ["private, max-age=5"], vary: ["Accept", "Cookie"]),
        CacheCase(upstream: [("Cache-Control", "max-age=60"), ("Vary", "Accept, cookie"), ("Cache-Control", "Public, must-revalidate")],
                  cacheControl: ["private, max-age=60, must-revalidate"], vary: ["Accept, cookie"]),
        CacheCase(upstream: [("Vary", "*"), ("Cache-Control", #"no-cache="a,b", S-Maxage=9"#)],
                  cacheControl: [#"private, no-cache="a,b""#], vary: ["*"]),
        // Instructions to CDNs and to the nginx in front, which would override Cache-Control there.
        CacheCase(upstream: [("CDN-Cache-Control", "max-age=600"), ("Surrogate-Control", "max-age=600"),
                             ("Cloudflare-CDN-Cache-Control", "max-age=600"), ("X-Accel-Expires", "600"),
                             ("Cache-Control", "max-age=5")],
                  cacheControl: ["private, max-age=5"], vary: ["Cookie"]),
    ]

    /// Fields that must never reach the browser from a personal answer.
    static let neverRelayed = ["CDN-Cache-Control", "Surrogate-Control", "Cloudflare-CDN-Cache-Control", "X-Accel-Expires"]

    static func answer(_ fields: [(String, String)], status: String = "200 OK", body: String = "{}") -> RawUpstream.Reply {
        .answer("HTTP/1.1 \(status)\r\n" + fields.map { "\($0.0): \($0.1)\r\n" }.joined()
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
    }

    /// On a `user` route every answer is `private` with `Vary: Cookie`,
    /// whatever the upstream said (`public` and `s-maxage` gone, its other
    /// directives kept), through a GET and a POST alike; on a `none` route
    /// the upstream's fields pass unchanged.
    @Test func personalAnswersAreKeptOutOfSharedCaches() async throws {
        let shared = [("Cache-Control", "public, max-age=60"), ("CDN-Cache-Control", "max-age=60"),
                      ("X-Accel-Redirect", "/internal/secret"), ("X-Accel-Buffering", "no")]
        let script = Self.personalCases.flatMap { [Self.answer($0.upstream), Self.answer($0.upstream)] } + [Self.answer(shared)]
        let upstream = try RawUpstream(script)
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: HTTPURL("http://127.0.0.1:\(upstream.port)/base/")!, token: .user),
                         RouteConfig(prefix: "/open/", upstream: HTTPURL("http://127.0.0.1:\(upstream.port)/base/")!, token: .none)]
        })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        for item in Self.personalCases {
            for method in ["GET", "POST"] {
                let response = try await browser.send(method, "/api/data", body: method == "POST" ? .object([:]) : nil)
                #expect(response.status == 200)
                #expect(response.values("Cache-Control") == item.cacheControl, "\(method) \(item.testDescription)")
                #expect(response.values("Vary") == item.vary, "\(method) \(item.testDescription)")
                for name in Self.neverRelayed { #expect(response.values(name).isEmpty, "\(name)") }
            }
        }
        let open = try await harness.browser().get("/open/data")
        #expect(open.values("Cache-Control") == ["public, max-age=60"], "a route without a session token is left alone")
        #expect(open.values("Vary").isEmpty)
        #expect(open.values("CDN-Cache-Control") == ["max-age=60"], "and its CDN fields too")
        #expect(open.values("X-Accel-Redirect").isEmpty, "nginx's internal redirect never, on any route")
        #expect(open.values("X-Accel-Buffering") == ["no"])
        #expect(upstream.received.count == script.count)
        await harness.stop()
        withExtendedLifetime(upstream) {}
    }

    /// nginx's `proxy_cache` in front of the gateway, keyed (as such caches
    /// are) without the cookie: an upstream that calls its answer `public`
    /// gets it from each user's own request, never from another user's.
    @Test func aSharedCacheInFrontNeverServesOneUsersAnswerToAnother() async throws {
        // `X-Accel-Expires` would make nginx cache whatever Cache-Control says.
        let cacheable = [("Cache-Control", "public, max-age=600"), ("X-Accel-Expires", "600")]
        let upstream = try RawUpstream([Self.answer(cacheable, body: #"{"user":"A"}"#),
                                        Self.answer(cacheable, body: #"{"user":"B"}"#)])
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: HTTPURL("http://127.0.0.1:\(upstream.port)/base/")!, token: .user)]
        })
        let (alice, bob) = (harness.browser(), harness.browser())
        #expect(try await SignInFlowTests.signInWithCode(harness, alice, email: "alice@example.com").status == 200)
        #expect(try await SignInFlowTests.signInWithCode(harness, bob, email: "bob@example.com").status == 200)

        let cache = NSTemporaryDirectory() + "modgud-nginx-cache-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o777])
        let port = try NginxFront.reservePort()
        let site = """
            proxy_cache_path \(cache) levels=1 keys_zone=shared:1m;
            server {
                listen 127.0.0.1:\(port);
                location / {
                    proxy_pass http://127.0.0.1:\(harness.port);
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_cache shared;
                    proxy_cache_key $scheme$proxy_host$request_uri;
                    add_header X-Cache $upstream_cache_status always;
                }
            }

            """
        let nginx = try await NginxFront.start(port: port, site: site)
        let (viaAlice, viaBob) = (Browser(port: port, origin: alice.origin), Browser(port: port, origin: bob.origin))
        viaAlice.setCookie("__Host-bff", try #require(alice.cookies["__Host-bff"]))
        viaBob.setCookie("__Host-bff", try #require(bob.cookies["__Host-bff"]))

        let first = try await viaAlice.get("/api/profile")
        let second = try await viaBob.get("/api/profile")
        #expect(first.bodyText == #"{"user":"A"}"#)
        #expect(second.bodyText == #"{"user":"B"}"#, "Bob never gets Alice's answer (X-Cache: \(second.header("X-Cache") ?? "-"))")
        #expect(upstream.received.count == 2, "each answer came from the upstream")
        await nginx.stop()
        nginx.removeFiles()
        try? FileManager.default.removeItem(atPath: cache)
        await harness.stop()
        withExtendedLifetime(upstream) {}
    }

    /// `Location` and `Content-Location` naming the route's upstream base
    /// (or a URL below it) come back under the public origin and the
    /// route's prefix, with their query and fragment; every other value,
    /// another host or port, a path beside the base, a relative reference,
    /// passes as it is.
    @Test func upstreamURLsInLocationsAreMovedToThePublicOrigin() async throws {
        func cases(_ port: UInt16) -> [(sent: String, expected: String)] {
            let own = "http://127.0.0.1:\(port)"
            return [
                ("\(own)/base/items/7?x=1#top", "https://app.example.com/api/items/7?x=1#top"),
                ("HTTP://127.0.0.1:\(port)/base/", "https://app.example.com/api/"),
                ("\(own)/base", "https://app.example.com/api"),
                ("\(own)/basement/x", "\(own)/basement/x"),
                ("http://127.0.0.1:\(port &+ 1)/base/x", "http://127.0.0.1:\(port &+ 1)/base/x"),
                ("https://127.0.0.1:\(port)/base/x", "https://127.0.0.1:\(port)/base/x"),
                ("https://login.example.net/base/x", "https://login.example.net/base/x"),
                ("/base/items/7", "/base/items/7"),
                // A dot segment would leave the route's prefix in the browser.
                ("\(own)/base/../admin", "\(own)/base/../admin"),
                ("\(own)/base/x/%2E%2e/y", "\(own)/base/x/%2E%2e/y"),
                ("items/7", "items/7"),
            ]
        }
        let upstream = try RawUpstream { port in
            cases(port).map { Self.answer([("Location", $0.sent), ("Content-Location", $0.sent)], status: "302 Found") }
        }
        let harness = try await GatewayHarness.start(gateway: {
            $0.publicOrigin = WebOrigin("https://app.example.com")!
            $0.routes = [RouteConfig(prefix: "/api/", upstream: HTTPURL(upstream.url("/base/"))!, token: .none)]
        })
        for item in cases(upstream.port) {
            let response = try await harness.browser(origin: "https://app.example.com").get("/api/go")
            #expect(response.status == 302)
            #expect(response.values("Location") == [item.expected], "\(item.sent)")
            #expect(response.values("Content-Location") == [item.expected], "\(item.sent)")
        }
        await harness.stop()
        withExtendedLifetime(upstream) {}
    }
}

extension RawResponse {
    /// Every value of `name`, in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }
}
