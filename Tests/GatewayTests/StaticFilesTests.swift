import Configuration
import Testing
@testable import Gateway

/// What a static file answer carries: its type, validator, cache rule,
/// security fields, encodings and the single-page fallback, over a real
/// loopback server (`StaticSite`).
@Suite("Static files: answers")
struct StaticFilesTests {
    static let html = "<!doctype html><title>app</title><script src=/app.js></script>"

    @Test("the usual web types, with charset=utf-8 for text; an unknown extension is octet-stream",
          arguments: [("a.html", "text/html; charset=utf-8"), ("a.js", "text/javascript; charset=utf-8"),
                      ("a.mjs", "text/javascript; charset=utf-8"), ("a.css", "text/css; charset=utf-8"),
                      ("a.json", "application/json; charset=utf-8"), ("a.js.map", "application/json; charset=utf-8"),
                      ("a.svg", "image/svg+xml; charset=utf-8"), ("a.png", "image/png"), ("a.JPG", "image/jpeg"),
                      ("a.gif", "image/gif"), ("a.webp", "image/webp"), ("favicon.ico", "image/x-icon"),
                      ("a.woff", "font/woff"), ("a.woff2", "font/woff2"), ("a.txt", "text/plain; charset=utf-8"),
                      ("a.wasm", "application/wasm"), ("site.webmanifest", "application/manifest+json; charset=utf-8"),
                      ("a.exe", "application/octet-stream"), ("LICENSE", "application/octet-stream")])
    func contentTypes(_ name: String, _ type: String) async throws {
        let site = try await StaticSite.start { try $0.write(name, "x") }
        let answer = try await site.request("/" + name)
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == type)
        #expect(answer.header("X-Content-Type-Options") == "nosniff")
        #expect(answer.text == "x")
        await site.stop()
    }

    @Test("HTML is no-cache with the security fields; a hashed name is immutable; anything else short-lived")
    func cacheRulesAndSecurityFields() async throws {
        let site = try await StaticSite.start {
            try $0.write("index.html", Self.html)
            try $0.write("app.js", "js")
            try $0.write("assets/main.3f9a0c1d.js", "hashed")
            try $0.write("assets/index-B4x9Qz1k.css", "hashed")
            try $0.write("assets/settings-page.js", "no hash")
        }
        let page = try await site.request("/")
        #expect(page.status == 200 && page.text == Self.html)
        #expect(page.header("Cache-Control") == "no-cache")
        #expect(page.header("Content-Security-Policy") == "default-src 'self'; script-src 'self'; object-src 'none'; "
            + "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
        #expect(page.header("Referrer-Policy") == "no-referrer")
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        #expect(page.header("Permissions-Policy") == "publickey-credentials-get=(self), publickey-credentials-create=(self)")
        #expect(page.header("Cross-Origin-Opener-Policy") == "same-origin")
        #expect(try await site.request("/index.html").header("Cache-Control") == "no-cache")

        let script = try await site.request("/app.js")
        #expect(script.header("Cache-Control") == "public, max-age=300")
        #expect(script.header("Content-Security-Policy") == nil, "the security fields are for HTML answers")
        #expect(script.header("X-Content-Type-Options") == "nosniff")
        for path in ["/assets/main.3f9a0c1d.js", "/assets/index-B4x9Qz1k.css"] {
            #expect(try await site.request(path).header("Cache-Control") == "public, max-age=31536000, immutable", "\(path)")
        }
        #expect(try await site.request("/assets/settings-page.js").header("Cache-Control") == "public, max-age=300")
        await site.stop()
    }

    @Test("the hash rule", arguments: [("main.3f9a0c1d.js", true), ("index-B4x9Qz1k.css", true), ("a.0123456789abcdef.woff2", true),
                                      ("settings-page.js", false), ("app.20260101.js", false), ("main.abcdefgh.js", false),
                                      ("main.3f9a0c1.js", false), ("3f9a0c1d4e.js", false), ("main.3f9a-0c1d.js", false),
                                      ("noext", false)])
    func hashRule(_ name: String, _ hashed: Bool) {
        #expect(StaticCacheRule.carriesHash(name[...]) == hashed)
    }

    @Test("configured HTML fields replace the defaults on HTML answers")
    func configuredHTMLFields() async throws {
        let fields = [HeaderField("Content-Security-Policy", "default-src 'none'"), HeaderField("X-Frame-Options", "DENY")]
        let site = try await StaticSite.start(htmlFields: fields) { try $0.write("index.html", Self.html) }
        let page = try await site.request("/")
        #expect(page.header("Content-Security-Policy") == "default-src 'none'")
        #expect(page.header("X-Frame-Options") == "DENY")
        #expect(page.header("Referrer-Policy") == nil)
        #expect(page.header("X-Content-Type-Options") == "nosniff", "never configurable away")
        await site.stop()
    }

    @Test("If-None-Match with the ETag (strong, weak, in a list, or *) is a 304 without a body; another tag a 200")
    func notModified() async throws {
        let site = try await StaticSite.start { try $0.write("app.js", "console.log(1)") }
        let first = try await site.request("/app.js")
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"), "a strong validator")
        for condition in [etag, "W/" + etag, "\"other\", " + etag, "*"] {
            let again = try await site.request("/app.js", ["If-None-Match: \(condition)"])
            #expect(again.status == 304, "\(condition)")
            #expect(again.body.isEmpty)
            #expect(again.header("ETag") == etag)
            #expect(again.header("Cache-Control") == "public, max-age=300")
            #expect(again.header("X-Content-Type-Options") == "nosniff")
        }
        let changed = try await site.request("/app.js", ["If-None-Match: \"other\""])
        #expect(changed.status == 200 && changed.text == "console.log(1)")
        let head = try await site.request("/app.js", ["If-None-Match: \(etag)"], method: "HEAD")
        #expect(head.status == 304 && head.body.isEmpty)
        await site.stop()
    }

    @Test("precompressed siblings: br preferred, then gzip, each with its own ETag, Vary on every answer")
    func encodings() async throws {
        let site = try await StaticSite.start {
            try $0.write("app.js", "plain")
            try $0.write("app.js.br", "brotli-bytes")
            try $0.write("app.js.gz", "gzip-bytes")
            try $0.write("only-gz.css", "plain css")
            try $0.write("only-gz.css.gz", "gzip css")
        }
        let cases: [(String?, String, String?)] = [
            ("gzip, deflate, br", "brotli-bytes", "br"), ("gzip", "gzip-bytes", "gzip"), ("br;q=0, gzip", "gzip-bytes", "gzip"),
            ("br;q=0.000, gzip;q=0", "plain", nil), ("identity", "plain", nil), (nil, "plain", nil), ("*", "brotli-bytes", "br"),
            ("*, br;q=0", "gzip-bytes", "gzip"), ("BR;Q=0.5", "brotli-bytes", "br"),
        ]
        var tags: [String: String] = [:]
        for (accept, body, encoding) in cases {
            let answer = try await site.request("/app.js", accept.map { ["Accept-Encoding: \($0)"] } ?? [])
            #expect(answer.text == body, "\(accept ?? "none")")
            #expect(answer.header("Content-Encoding") == encoding, "\(accept ?? "none")")
            #expect(answer.header("Vary") == "Accept-Encoding")
            #expect(answer.header("Content-Type") == "text/javascript; charset=utf-8", "the type of the file, not the sibling")
            tags[body] = answer.header("ETag")
        }
        #expect(Set(tags.values).count == 3, "each encoding its own ETag")
        // A validator of one encoding does not match another.
        let brTag = try #require(tags["brotli-bytes"])
        #expect(try await site.request("/app.js", ["Accept-Encoding: br", "If-None-Match: \(brTag)"]).status == 304)
        #expect(try await site.request("/app.js", ["Accept-Encoding: gzip", "If-None-Match: \(brTag)"]).status == 200)
        let css = try await site.request("/only-gz.css", ["Accept-Encoding: br, gzip"])
        #expect(css.text == "gzip css" && css.header("Content-Encoding") == "gzip")
        #expect(try await site.request("/app.js.br").header("Content-Type") == "application/octet-stream",
                "a sibling asked for by name is a file of its own")
        await site.stop()
    }

    @Test("a file without siblings carries no Vary")
    func noVaryWithoutSiblings() async throws {
        let site = try await StaticSite.start { try $0.write("app.js", "plain") }
        #expect(try await site.request("/app.js", ["Accept-Encoding: br"]).header("Vary") == nil)
        await site.stop()
    }

    @Test("the single-page fallback: paths without a file and extension, for requests taking HTML")
    func fallback() async throws {
        let site = try await StaticSite.start {
            try $0.write("index.html", Self.html)
            try $0.write("empty/readme.txt", "not an index")
        }
        let accept = "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        for path in ["/settings", "/settings/profile", "/users/42?tab=keys"] {
            let page = try await site.request(path, [accept])
            #expect(page.status == 200 && page.text == Self.html, "\(path)")
            #expect(page.header("Cache-Control") == "no-cache")
            #expect(page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        }
        let head = try await site.request("/settings", [accept], method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("Content-Length") == String(Self.html.utf8.count))
        for (path, fields) in [("/settings", ["Accept: application/json"]), ("/settings", ["Accept: text/html;q=0"]),
                               ("/settings", []), ("/missing.js", [accept]), ("/missing.png", [accept]), ("/empty/", [accept])] {
            let missing = try await site.request(path, fields)
            #expect(missing.status == 404, "\(path) \(fields)")
            #expect(missing.header("X-Content-Type-Options") == "nosniff")
            #expect(!missing.text.contains("readme"), "never a listing")
        }
        await site.stop()
    }

    @Test("the fallback off: 404; another fallback file is served as itself")
    func fallbackSettings() async throws {
        let off = try await StaticSite.start(fallback: nil) { try $0.write("index.html", Self.html) }
        #expect(try await off.request("/settings", ["Accept: text/html"]).status == 404)
        #expect(try await off.request("/", ["Accept: text/html"]).status == 200, "the root's index is no fallback")
        await off.stop()
        let other = try await StaticSite.start(fallback: "app/shell.html") { try $0.write("app/shell.html", "<p>shell") }
        let page = try await other.request("/deep/link", ["Accept: text/html"])
        #expect(page.text == "<p>shell" && page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(try await other.request("/", ["Accept: text/html"]).status == 404, "no index.html: 404, never a listing")
        await other.stop()
    }

    @Test("a directory serves its index.html, with or without the last slash")
    func directories() async throws {
        let site = try await StaticSite.start { try $0.write("docs/index.html", "<p>docs") }
        for path in ["/docs/", "/docs"] {
            let page = try await site.request(path)
            #expect(page.status == 200 && page.text == "<p>docs", "\(path)")
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        }
        await site.stop()
    }

    @Test("HEAD: the GET answer's fields and length, no body; other methods 405 with Allow")
    func methods() async throws {
        let site = try await StaticSite.start { try $0.write("app.js", "0123456789") }
        let get = try await site.request("/app.js")
        for _ in 0..<2 { // kept or not
            let head = try await site.request("/app.js", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == "10")
            #expect(head.header("ETag") == get.header("ETag"))
            #expect(head.header("Content-Type") == get.header("Content-Type"))
        }
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            let refused = try await site.request("/app.js", ["Content-Length: 0"], method: method)
            #expect(refused.status == 405, "\(method)")
            #expect(refused.header("Allow") == "GET, HEAD")
        }
        await site.stop()
    }
}
