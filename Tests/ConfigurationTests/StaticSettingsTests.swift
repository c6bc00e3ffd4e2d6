import Foundation
import Testing
@testable import Configuration

@Suite("Static file settings: BFF_STATIC_ROOT, _FALLBACK, _HTML_HEADERS, _REVALIDATE_MS")
struct StaticSettingsTests {
    @Test("the defaults: no root, index.html as fallback, the built-in HTML fields, a second between checks")
    func defaults() throws {
        let config = try loadConfig()
        #expect(config.staticRoot == nil)
        #expect(config.staticFallback == "index.html")
        #expect(config.staticHTMLHeaders == HeaderField.staticHTMLDefaults)
        #expect(config.staticHTMLHeaders.map(\.name) == ["Content-Security-Policy", "Referrer-Policy", "Permissions-Policy",
                                                          "Cross-Origin-Opener-Policy"])
        #expect(config.staticRevalidate == .seconds(1))
    }

    @Test("an existing directory is the root; a missing one or a file is a problem naming the setting")
    func root() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bff-static-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("index.html")
        try Data("<p>".utf8).write(to: file)

        let config = try loadConfig(["BFF_STATIC_ROOT": directory.path])
        #expect(config.staticRoot == directory.path)
        #expect(config.redactedSummary().contains { $0 == ("BFF_STATIC_ROOT", directory.path) })
        let missing = try loadProblems(["BFF_STATIC_ROOT": directory.path + "/nothing"])
        #expect(missing.map(\.setting) == ["BFF_STATIC_ROOT"])
        #expect(missing.first?.message.contains("does not exist") == true)
        let notDirectory = try loadProblems(["BFF_STATIC_ROOT": file.path])
        #expect(notDirectory.map(\.setting) == ["BFF_STATIC_ROOT"])
        #expect(notDirectory.first?.message.contains("is not a directory") == true)
    }

    @Test("the fallback: off, or a relative file path", arguments: [("off", nil), ("app.html", "app.html"),
                                                                    ("app/index.html", "app/index.html")] as [(String, String?)])
    func fallback(_ value: String, _ expected: String?) throws {
        #expect(try loadConfig(["BFF_STATIC_FALLBACK": value]).staticFallback == expected)
    }

    @Test("a fallback that is absolute, climbs, hides or has an empty segment is refused",
          arguments: ["/index.html", "../index.html", "app/../index.html", ".env", "app/.hidden/index.html", "app//index.html",
                      "app\\index.html", "app/"])
    func fallbackRefused(_ value: String) throws {
        #expect(try loadProblems(["BFF_STATIC_FALLBACK": value]).map(\.setting) == ["BFF_STATIC_FALLBACK"])
    }

    @Test("HTML fields are laid over the defaults: replaced in any case, dropped when empty, added when new")
    func htmlHeaders() throws {
        let text = #"{"content-security-policy": "default-src 'none'", "Cross-Origin-Opener-Policy": "", "X-Frame-Options": "DENY"}"#
        let fields = try loadConfig(["BFF_STATIC_HTML_HEADERS": text]).staticHTMLHeaders
        #expect(fields == [HeaderField("Referrer-Policy", "no-referrer"),
                           HeaderField("Permissions-Policy", "publickey-credentials-get=(self), publickey-credentials-create=(self)"),
                           HeaderField("content-security-policy", "default-src 'none'"), HeaderField("X-Frame-Options", "DENY")])
        let file = try TemporaryConfigFile(#"{"staticHtmlHeaders": {"Referrer-Policy": "same-origin"}}"#)
        defer { file.remove() }
        let fromFile = try loadConfig(file: file.path)
        #expect(fromFile.staticHTMLHeaders.first { $0.name == "Referrer-Policy" }?.value == "same-origin")
        #expect(fromFile.redactedSummary().contains { $0.0 == "BFF_STATIC_HTML_HEADERS" && $0.1.contains("same-origin") })
    }

    @Test("HTML fields that are not an object, name a field the answers set, or carry a line break are refused",
          arguments: [#"["a"]"#, "not json", #"{"Content-Type": "text/plain"}"#, #"{"Set-Cookie": "a=b"}"#,
                      #"{"Bad Name": "x"}"#, #"{"X-A": "one\r\nX-B: two"}"#, #"{"X-A": 1}"#, #"{"CACHE-CONTROL": "no-store"}"#])
    func htmlHeadersRefused(_ value: String) throws {
        #expect(try loadProblems(["BFF_STATIC_HTML_HEADERS": value]).map(\.setting) == ["BFF_STATIC_HTML_HEADERS"])
    }

    @Test("the revalidation interval is read in milliseconds, 0 allowed")
    func revalidate() throws {
        #expect(try loadConfig(["BFF_STATIC_REVALIDATE_MS": "0"]).staticRevalidate == .zero)
        #expect(try loadConfig(["BFF_STATIC_REVALIDATE_MS": "250"]).staticRevalidate == .milliseconds(250))
        #expect(try loadProblems(["BFF_STATIC_REVALIDATE_MS": "-1"]).map(\.setting) == ["BFF_STATIC_REVALIDATE_MS"])
    }
}
