import Testing
@testable import Gateway

/// Which paths the static files refuse: every one a 404 (never a 500),
/// never a byte of a file outside the root or a hidden one. The API
/// proxy's escape cases (ProxyRoutingTests) plus symbolic links out,
/// hidden names, NUL and encoded dots.
@Suite("Static files: path safety")
struct StaticPathSafetyTests {
    static let escapes = [
        // The proxy's cases, below the root instead of /api/.
        "/../outside/secret.txt", "/%2e%2e/outside/secret.txt", "/a/%2E/b", "/x/..", "/..#", "/x#/../..",
        "/..;/..;/outside/secret.txt", "/.;x/y", "/%2e%2E;a=b/c",
        "/..\\..\\outside\\secret.txt", "/a\\b", "/..%5c..%5coutside%5csecret.txt",
        "/..%2f..%2foutside%2fsecret.txt", "/a%2Fb", "/a%00b", "//evil.example/x", "/a//b",
        // Encoded dots, NUL, bad escapes.
        "/%2e%2e%2foutside/secret.txt", "/%2E%2E/%2E%2E/outside/secret.txt", "/public/%2e%2e/%2e%2e/outside/secret.txt",
        "/public/..%2F..%2Foutside/secret.txt", "/public/ok.txt%00.html", "/%00", "/public/%zz", "/public/%2", "/public/%",
        // Hidden files and directories, plain or encoded.
        "/.env", "/.git/config", "/public/.hidden.txt", "/%2eenv", "/public/%2ehidden.txt", "/.well-hidden/",
        // Symbolic links leaving the root, or landing on a hidden name inside it.
        "/escape.txt", "/escape-dir/secret.txt", "/absolute-escape.txt", "/to-hidden.txt", "/via-hidden/readme.txt",
        // The gateway's own paths are never files.
        "/bff/secret.txt", "/BFF/secret.txt", "/bff", "/Bff/",
    ]

    @Test("every escape, hidden name and symbolic link out is a 404 without the file's bytes")
    func escapesAreRefused() async throws {
        let site = try await StaticSite.start {
            try $0.write("public/ok.txt", "fine")
            try $0.write("index.html", "<p>index")
            try $0.write(".env", "SECRET=1")
            try $0.write(".git/config", "[core]")
            try $0.write("public/.hidden.txt", "hidden")
            try $0.write(".well-hidden/index.html", "hidden index")
            try $0.write("bff/secret.txt", "shadowed")
            try $0.link("escape.txt", to: "../outside/secret.txt")
            try $0.link("escape-dir", to: "../outside")
            try $0.link("absolute-escape.txt", to: $0.root + "/../outside/secret.txt")
            try $0.link("to-hidden.txt", to: ".env")
            try $0.link("via-hidden", to: ".well-hidden")
            try $0.write(".well-hidden/readme.txt", "hidden readme")
        }
        for path in Self.escapes {
            for fields in [[], ["Accept: text/html"]] {
                let answer = try await site.request(path, fields)
                #expect(answer.status == 404, "\(path)")
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(path)")
                for secret in [StaticSite.secret, "SECRET", "hidden", "[core]", "shadowed", "<p>index"] {
                    #expect(!answer.text.contains(secret), "\(path) leaked \(secret)")
                }
            }
        }
        #expect(try await site.request("/public/ok.txt").text == "fine", "the site itself is served")
        await site.stop()
    }

    @Test("a symbolic link inside the root to a file inside it is followed")
    func linksInsideAreServed() async throws {
        let site = try await StaticSite.start {
            try $0.write("assets/real.js", "real")
            try $0.link("latest.js", to: "assets/real.js")
            try $0.link("current", to: "assets")
        }
        #expect(try await site.request("/latest.js").text == "real")
        #expect(try await site.request("/current/real.js").text == "real")
        #expect(try await site.request("/latest.js").header("Content-Type") == "text/javascript; charset=utf-8")
        await site.stop()
    }

    @Test("the path rule", arguments: [("/", "", true), ("/a/b.js", "a/b.js", false), ("/a/", "a", true), ("/a/b/", "a/b", true),
                                      ("/caf%C3%A9.txt", "café.txt", false), ("/a%20b", "a b", false),
                                      ("/%252e%252e", "%2e%2e", false), ("/bffx/a", "bffx/a", false)] as [(String, String, Bool)])
    func pathRule(_ path: String, _ relative: String, _ directory: Bool) throws {
        let place = try #require(StaticPath(path[...]))
        #expect(place.relative == relative)
        #expect(place.isDirectory == directory)
    }

    @Test("refused paths", arguments: escapes.filter { !$0.hasPrefix("/escape") && !$0.contains("absolute") && !$0.contains("to-hidden")
        && !$0.contains("via-hidden") } + ["relative", "", "/caf%C3.txt", "/a//", "//", "/a/./b", "/a/.."])
    func refusedPaths(_ path: String) {
        #expect(StaticPath(path[...]) == nil, "\(path)")
    }
}
