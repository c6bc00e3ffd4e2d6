import Foundation
import Testing
@testable import Configuration

@Suite("nginx locations from the configuration")
struct NginxLocationsTests {
    static let modgud = ["BFF_MODGUD_URL": "http://127.0.0.1:1", "BFF_CLIENT_ID": "bff", "BFF_CLIENT_SECRET": "s"]

    @Test("with no routes, /bff/ alone, its limits from the defaults")
    func defaultsForwardOnlyBFF() throws {
        let text = NginxLocations(try loadConfig()).text
        #expect(text.hasSuffix("""

            # The gateway's own endpoints: small JSON bodies. The body limit sits above BFF_MAX_BODY_BYTES
            # (65536), so the gateway answers an oversized body with its own JSON 413.
            location ^~ /bff/ {
                proxy_pass http://modgud_bff;
                client_max_body_size 128k;
                proxy_read_timeout 75s;
                proxy_send_timeout 75s;
            }
            """), "\(text)")
        #expect(text.components(separatedBy: "location ").count == 2)
        #expect(text.contains("# BFF_ADMIN_LISTEN (127.0.0.1:9090)."))
    }

    @Test("every route gets a streaming block of its own, in order")
    func everyRoute() throws {
        let routes = #"""
            [{"prefix":"/api/orders/","upstream":"http://127.0.0.1:9/o/","token":"user","maxBodyBytes":1048576},
             {"prefix":"/api/","upstream":"http://127.0.0.1:9/","token":"user-or-anonymous"},
             {"prefix":"/v1;legacy/","upstream":"http://127.0.0.1:9/l/","token":"none","maxBodyBytes":0}]
            """#
        let config = try loadConfig(Self.modgud.merging(["BFF_ROUTES": routes, "BFF_PROXY_MAX_BODY_BYTES": "3000"]) { $1 })
        let blocks = NginxLocations(config).text.components(separatedBy: "\n\n")
        #expect(blocks.count == 5)
        #expect(blocks[2] == """
            # BFF_ROUTES[0], token user; bodies stream both ways.
            # The body limit sits above its maxBodyBytes (1048576): the gateway's own JSON 413 answers first.
            location ^~ /api/orders/ {
                proxy_pass http://modgud_bff;
                client_max_body_size 2m;
                proxy_request_buffering off;
                proxy_buffering off;
                proxy_read_timeout 75s;
                proxy_send_timeout 75s;
            }
            """)
        #expect(blocks[3].contains("# The body limit sits above BFF_PROXY_MAX_BODY_BYTES (3000): "))
        #expect(blocks[3].contains("\nlocation ^~ /api/ {\n    proxy_pass http://modgud_bff;\n    client_max_body_size 6000;\n"))
        // A prefix with a character nginx reads as the end of a word is quoted;
        // a body limit of 0 still gets a limit (0 would be none at all).
        #expect(blocks[4].contains("\nlocation ^~ \"/v1;legacy/\" {\n    proxy_pass http://modgud_bff;\n    client_max_body_size 1k;\n"))
    }

    @Test("the timeouts follow BFF_MODGUD_TIMEOUT_MS and BFF_UPSTREAM_TIMEOUT_MS, rounded up to seconds")
    func timeouts() throws {
        let config = try loadConfig(Self.modgud.merging([
            "BFF_MODGUD_TIMEOUT_MS": "2500", "BFF_UPSTREAM_TIMEOUT_MS": "60000",
            "BFF_ROUTES": #"[{"prefix":"/api/","upstream":"http://127.0.0.1:9/","token":"user"}]"#,
        ]) { $1 })
        let locations = NginxLocations(config)
        #expect(locations.bffTimeout == 20 + 4 * 3 + 15)
        #expect(locations.routeTimeout == 20 + 3 + 60 + 15)
        let text = locations.text
        #expect(text.contains("location ^~ /bff/ {\n    proxy_pass http://modgud_bff;\n    client_max_body_size 128k;\n    proxy_read_timeout 47s;\n    proxy_send_timeout 47s;\n}"))
        #expect(text.contains("    proxy_read_timeout 98s;\n    proxy_send_timeout 98s;\n}"))
    }

    @Test("a route for / replaces the front end's location / and says so")
    func rootRoute() throws {
        let config = try loadConfig(Self.modgud.merging([
            "BFF_ROUTES": #"[{"prefix":"/","upstream":"http://127.0.0.1:9/","token":"none"}]"#,
        ]) { $1 })
        let text = NginxLocations(config, upstream: "gateways").text
        #expect(text.contains("# Prefix /: every path goes to the gateway; this replaces the front end's location /.\nlocation ^~ / {\n    proxy_pass http://gateways;\n"))
    }

    @Test("a static root gets a location / after the routes, unless a route for / already takes every path")
    func staticRoot() throws {
        let root = NSTemporaryDirectory()
        let config = try loadConfig(Self.modgud.merging([
            "BFF_STATIC_ROOT": root,
            "BFF_ROUTES": #"[{"prefix":"/api/","upstream":"http://127.0.0.1:9/","token":"user"}]"#,
        ]) { $1 })
        let blocks = NginxLocations(config).text.components(separatedBy: "\n\n")
        #expect(blocks.count == 4)
        #expect(blocks[3] == """
            # BFF_STATIC_ROOT (\(root)): the gateway serves the front end's files, with its page headers
            # and single-page fallback; this replaces the front end's location /. To let nginx serve
            # that directory itself instead, keep location / with root at it and leave this block out.
            location ^~ / {
                proxy_pass http://modgud_bff;
                client_max_body_size 1k;
                proxy_read_timeout 15s;
                proxy_send_timeout 15s;
            }
            """)
        let rootRoute = try loadConfig(Self.modgud.merging([
            "BFF_STATIC_ROOT": root,
            "BFF_ROUTES": #"[{"prefix":"/","upstream":"http://127.0.0.1:9/","token":"none"}]"#,
        ]) { $1 })
        let text = NginxLocations(rootRoute).text
        #expect(text.components(separatedBy: "location ^~ / {").count == 2)
        #expect(!text.contains("BFF_STATIC_ROOT"))
    }

    @Test("sizes in nginx's units", arguments: [
        (1024, "1k"), (131_072, "128k"), (2_097_152, "2m"), (20_971_520, "20m"), (1 << 30, "1g"),
        (3 << 40, "3072g"), (6000, "6000"), (1536, "1536"),
    ])
    func sizes(bytes: Int, text: String) {
        #expect(NginxLocations.size(bytes) == text)
    }

    @Test("prefixes as nginx words", arguments: [
        ("/api/", "/api/"), ("/a-b_c.d~e:f@g!h*i+j,k=l&m/", "/a-b_c.d~e:f@g!h*i+j,k=l&m/"),
        ("/v1;x/", "\"/v1;x/\""), ("/it's/", "\"/it's/\""), ("/a$b/", "\"/a$b/\""), ("/(x)/", "\"/(x)/\""),
    ])
    func words(prefix: String, word: String) {
        #expect(NginxLocations.quoted(prefix) == word)
    }
}
