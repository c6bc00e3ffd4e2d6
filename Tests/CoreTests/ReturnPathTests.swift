import Core
import Foundation
import TestSupport
import Testing

/// The same-origin-path rule for `returnUrl` and the sign-in error path,
/// against a model written another way (string searches and regular
/// expressions instead of one byte scanner), on fixed cases and on seeded
/// random ones; every accepted value is also resolved as a browser would
/// and must stay on the origin.
@Suite struct ReturnPathTests {
    @Test(arguments: [
        "//evil", "//evil.example/path", "/\\evil", "\\\\evil", "/%2F%2Fevil", "/%2f%2fevil", "/%5Cevil", "/%5cevil",
        "/%252F%252Fevil", "https:evil", "https://evil", "javascript:alert(1)", "evil", "", " /", "/ a", "/\ta",
        "/a\n", "/a\r\nSet-Cookie:x", "/%09", "/%0A", "/%0d%0a", "/%00", "/a%2", "/a%zz", "/a%", "/café", "/a//b",
        "///", "/.%2F/evil", "/%2E%2E%2F%2Fevil", "/a\u{7F}", "/\u{2028}",
    ])
    func refuses(_ value: String) {
        #expect(ReturnPath.sanitized(value) == "/")
        #expect(Model.accepts(value) == false)
    }

    @Test(arguments: ["/", "/app", "/app/page?x=1&y=2#top", "/a/b/c.html", "/search?q=100%25", "/%7Euser", "/a:b", "/a@b"])
    func keeps(_ value: String) {
        #expect(ReturnPath.sanitized(value) == value)
        #expect(Model.accepts(value))
    }

    @Test func refusesNilAndLongPaths() {
        #expect(ReturnPath.sanitized(nil) == "/")
        let longest = "/" + String(repeating: "a", count: ReturnPath.maximumBytes - 1)
        #expect(ReturnPath.sanitized(longest) == longest)
        #expect(ReturnPath.sanitized(longest + "a") == "/")
        #expect(ReturnPath.sanitized("/" + String(repeating: "%2F", count: 5000)) == "/")
    }

    /// Thousands of values built from pieces that matter to the rule.
    @Test func agreesWithTheModelOnRandomValues() {
        var random = SplitMix64(seed: 0x25_0C0D_E)
        var accepted = 0
        for _ in 0..<20_000 {
            let value = Self.randomValue(&random)
            let expected = Model.accepts(value)
            let sanitized = ReturnPath.sanitized(value)
            #expect(sanitized == (expected ? value : "/"), "seed case: \(value.debugDescription)")
            if expected {
                accepted += 1
                #expect(Self.staysOnOrigin(value), "escapes the origin: \(value.debugDescription)")
            }
        }
        // The generator reaches both sides of the rule.
        #expect(accepted > 1_000 && accepted < 19_000)
    }

    static let pieces = [
        "/", "/", "/", "//", "\\", "a", "b", "evil", "x.y", "%2F", "%2f", "%5C", "%5c", "%25", "%", "%2", "%zz", "%41",
        "%252F", "%09", "%0A", "%20", "%7F", "%C3%A9", "https:", "http://", ":", "?", "#", "&", "=", "@", ".", "..",
        "\t", "\n", "\r", " ", "\u{0}", "\u{7F}", "é", "~",
    ]

    static func randomValue(_ random: inout SplitMix64) -> String {
        if random.next() % 50 == 0 {
            // A long one, near the limit either side.
            let length = ReturnPath.maximumBytes - 4 + Int(random.next() % 8)
            return "/" + String(repeating: "p", count: length - 1)
        }
        let start = random.next() % 4 == 0 ? "" : "/"
        let count = Int(random.next() % 6)
        var value = start
        for _ in 0..<count {
            // Plain path characters most of the time, so that many values pass.
            let piece = random.next() % 3 == 0 ? pieces[Int(random.next() % UInt64(pieces.count))] : ["a", "b/", "c", "d.e"][Int(random.next() % 4)]
            value += piece
        }
        return value
    }

    /// What a browser on `https://app.example` makes of a `Location` of
    /// `value`: it must be the same origin.
    static func staysOnOrigin(_ value: String) -> Bool {
        guard let base = URL(string: "https://app.example/start"), let resolved = URL(string: value, relativeTo: base) else {
            return false
        }
        return resolved.absoluteURL.host == "app.example" && resolved.absoluteURL.scheme == "https"
    }

    /// The rule restated: string searches per layer, decoding by regular
    /// expression.
    enum Model {
        static func accepts(_ value: String) -> Bool {
            guard value.utf8.count <= 2048 else { return false }
            if value.contains(/%(?![0-9A-Fa-f]{2})/) { return false }
            var layer = value
            for _ in 0..<4 {
                guard layer.hasPrefix("/"), !layer.contains("//"), !layer.contains("\\"),
                      layer.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
                else { return false }
                let decoded = decode(layer)
                if decoded == layer { return true }
                layer = decoded
            }
            return false
        }

        static func decode(_ text: String) -> String {
            var bytes: [UInt8] = []
            var rest = Substring(text)
            while let match = rest.firstMatch(of: /%([0-9A-Fa-f]{2})/) {
                bytes += Array(rest[..<match.range.lowerBound].utf8)
                bytes.append(UInt8(match.output.1, radix: 16)!)
                rest = rest[match.range.upperBound...]
            }
            bytes += Array(rest.utf8)
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
