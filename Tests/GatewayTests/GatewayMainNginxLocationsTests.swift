import Configuration
import Foundation
import Testing
import TestSupport
@testable import Gateway

/// `modgud-bff --print-nginx-locations` prints, for the configuration's
/// routes, the blocks that send every gateway path to the gateway; pasted
/// into a server block, real nginx forwards exactly those paths and leaves
/// the rest to the front end.
@Suite("modgud-bff executable: --print-nginx-locations", .serialized)
struct GatewayMainNginxLocationsTests {
    static let environment = [
        "BFF_MODGUD_URL": "http://127.0.0.1:1", "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "very-secret-value",
        "BFF_ROUTES": #"""
            [{"prefix":"/api/orders/","upstream":"http://127.0.0.1:9/orders/","token":"user","maxBodyBytes":1048576},
             {"prefix":"/api/","upstream":"http://127.0.0.1:9/","token":"user-or-anonymous"},
             {"prefix":"/status/","upstream":"http://127.0.0.1:9/status/","token":"none","methods":["GET"]},
             {"prefix":"/v1;legacy/","upstream":"http://127.0.0.1:9/legacy/","token":"none","maxBodyBytes":0}]
            """#,
    ]

    @Test func printsTheBlocksForEveryRouteAndExitsZero() async throws {
        let run = try await GatewayMainTests.run(["--print-nginx-locations"], environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        // The text NginxLocations makes for the same configuration (its format is
        // pinned by ConfigurationTests.NginxLocationsTests), and a newline.
        let config = try ConfigLoader.load(environment: Self.environment, configFile: nil).get()
        #expect(run.stdout == NginxLocations(config).text + "\n")
        #expect(run.stdout.contains("location ^~ /bff/ {") && run.stdout.contains("location ^~ \"/v1;legacy/\" {"))
        #expect(run.stderr.isEmpty)
        #expect(!run.stdout.contains("127.0.0.1:9/"), "upstream URLs stay out (they may carry credentials)")
    }

    @Test func aBadConfigurationPrintsItsProblemsInstead() async throws {
        let run = try await GatewayMainTests.run(["--print-nginx-locations"], environment: ["BFF_ROUTES": #"[{"prefix":"/api"}]"#])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("modgud-bff: 3 configuration problems:\n  BFF_ROUTES[0]."), "\(run.stderr)")
    }

    /// nginx with the printed blocks in a server block beside a front end
    /// (static files, `index.html` for every other path, and a regular
    /// expression location for scripts): each gateway path reaches the
    /// upstream `modgud_bff` with its path unchanged, `/bff/` and the `;`
    /// prefix included, a script under a route too; any other path is the
    /// front end's `index.html` (`/bff` nginx redirects to `/bff/`).
    @Test func nginxForwardsExactlyThePrintedPaths() async throws {
        let environment = Self.environment
        let printed = try await GatewayMainTests.run(["--print-nginx-locations"], environment: environment)
        try #require(printed.status == 0)
        let reply = RawUpstream.Reply.answer("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\ngateway", then: .close)
        let gateway = try RawUpstream([RawUpstream.Reply](repeating: reply, count: 8))
        let port = try NginxFront.reservePort()
        let site = """
            upstream modgud_bff { server 127.0.0.1:\(gateway.port); }
            server {
                listen 127.0.0.1:\(port);
                root www;
                location / { try_files $uri /index.html; }
                location ~* \\.js$ { try_files $uri =404; }
            \(printed.stdout)
            }

            """
        let front = try await NginxFront.start(port: port, site: site)
        defer { front.removeFiles() }
        let gatewayPaths = ["/bff/user", "/api/orders/7?x=1", "/api/items", "/api/bundle.js", "/status/", "/v1;legacy/a"]
        let answers = await Self.get(gatewayPaths + ["/", "/elsewhere/deep", "/apix/", "/bff", "/app.js"], port: port)
        await front.stop()
        for path in gatewayPaths {
            #expect(answers[path] == "200 gateway", "\(path): \(answers[path] ?? "")")
        }
        for path in ["/", "/elsewhere/deep", "/apix/"] {
            #expect(answers[path] == "200 \(front.indexHTML)", "\(path) is the front end's: \(answers[path] ?? "")")
        }
        // nginx's own rule for a proxied prefix ending in /: the path without the slash is redirected to it.
        #expect(answers["/bff"]?.hasPrefix("301 ") == true)
        #expect(answers["/app.js"]?.hasPrefix("404 ") == true, "the script location stays the front end's")
        #expect(gateway.received.map { $0.requestLine } == gatewayPaths.map { "GET \($0) HTTP/1.0" })
    }

    /// With BFF_STATIC_ROOT the printed blocks end in `location ^~ /`,
    /// which takes the front end's place: nginx accepts them as the whole
    /// server block, and every path, a script's too, reaches the gateway.
    @Test func withAStaticRootNginxForwardsEveryPath() async throws {
        let environment = Self.environment.merging(["BFF_STATIC_ROOT": NSTemporaryDirectory()]) { $1 }
        let printed = try await GatewayMainTests.run(["--print-nginx-locations"], environment: environment)
        try #require(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout.contains("location ^~ / {"))
        let reply = RawUpstream.Reply.answer("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\ngateway", then: .close)
        let paths = ["/", "/app.js", "/elsewhere/deep", "/bff/user", "/api/items"]
        let gateway = try RawUpstream([RawUpstream.Reply](repeating: reply, count: paths.count))
        let port = try NginxFront.reservePort()
        let site = """
            upstream modgud_bff { server 127.0.0.1:\(gateway.port); }
            server {
                listen 127.0.0.1:\(port);
                location ~* \\.js$ { return 404; }
            \(printed.stdout)
            }

            """
        let front = try await NginxFront.start(port: port, site: site)
        defer { front.removeFiles() }
        let answers = await Self.get(paths, port: port)
        await front.stop()
        for path in paths {
            #expect(answers[path] == "200 gateway", "\(path): \(answers[path] ?? "")")
        }
        #expect(gateway.received.map { $0.requestLine } == paths.map { "GET \($0) HTTP/1.0" })
    }

    /// Each path's answer through the nginx on `port`: its status and body.
    private static func get(_ paths: [String], port: UInt16) async -> [String: String] {
        var answers: [String: String] = [:]
        for path in paths {
            guard let client = try? RawClient(port: port) else { answers[path] = "no connection"; continue }
            await client.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let response = RawResponse.parse(await client.readToEnd())?.0
            answers[path] = response.map { "\($0.status) \($0.bodyText)" } ?? "no answer"
        }
        return answers
    }
}
