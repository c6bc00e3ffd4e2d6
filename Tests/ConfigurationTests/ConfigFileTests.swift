import CSystem
import Foundation
import Testing
@testable import Configuration

/// Reading the file and its JSON without Foundation: what JSONSerialization
/// did is kept, and the strict parser's refusals are problems for --config.
@Suite("Config file")
struct ConfigFileTests {
    func fileProblem(_ bytes: [UInt8]) throws -> ConfigError? {
        let file = try TemporaryConfigFile(bytes: bytes)
        defer { file.remove() }
        let problems = try loadProblems(file: file.path)
        #expect(problems.count == 1)
        return problems.first
    }

    @Test("numbers written as doubles with integral values are integers, as before", arguments: [
        (#"{"loops": 4.0}"#, 4), (#"{"loops": 1e1}"#, 10), (#"{"loops": 3}"#, 3), (#"{"loops": "5"}"#, 5),
    ])
    func integralDoubles(json: String, loops: Int) throws {
        let file = try TemporaryConfigFile(json)
        defer { file.remove() }
        #expect(try loadConfig(file: file.path).eventLoops == loops)
    }

    @Test("booleans and numbers are not interchangeable", arguments: [
        (#"{"accessLog": 0}"#, "BFF_ACCESS_LOG", "must be true or false"),
        (#"{"accessLog": 1.0}"#, "BFF_ACCESS_LOG", "must be true or false"),
        (#"{"maxConnections": false}"#, "BFF_MAX_CONNECTIONS", "must be an integer"),
        (#"{"maxConnections": 1e300}"#, "BFF_MAX_CONNECTIONS", "must be an integer"),
        (#"{"maxConnections": 12345678901234567890}"#, "BFF_MAX_CONNECTIONS", "must be an integer"),
        (#"{"maxConnections": -5}"#, "BFF_MAX_CONNECTIONS", "must be an integer from 1"),
        (#"{"trustedProxies": [null]}"#, "BFF_TRUSTED_PROXIES", "must be an array of strings"),
        (#"{"trustedProxies": {"a": "10.0.0.0/8"}}"#, "BFF_TRUSTED_PROXIES", "must be an array of strings"),
        (#"{"routes": "[1]"}"#, "BFF_ROUTES[0]", "must be an object"),
        (#"{"routes": [{"prefix": "/a/", "upstream": "https://a/", "token": "none", "maxBodyBytes": true}]}"#,
         "BFF_ROUTES[0].maxBodyBytes", "must be an integer"),
    ])
    func types(json: String, setting: String, fragment: String) throws {
        let problem = try fileProblem(Array(json.utf8))
        #expect(problem?.setting == setting)
        #expect(problem?.message.contains(fragment) == true, "\(String(describing: problem))")
    }

    @Test("empty lists and route arrays, nulls, and routes with escapes")
    func emptyAndEscaped() throws {
        let file = try TemporaryConfigFile(#"""
        {"trustedProxies": [], "routes": [{"prefix": "\/api\/", "upstream": "https:\/\/api\u003a8080/", "token": "none",
          "methods": ["GET"], "resource": null, "maxBodyBytes": 1024.0}], "logLevel": null}
        """#)
        defer { file.remove() }
        let config = try loadConfig(file: file.path)
        #expect(config.trustedProxies.isEmpty)
        #expect(config.routes == [RouteConfig(prefix: "/api/", upstream: HTTPURL("https://api:8080/")!, token: .none,
                                              methods: ["GET"], maxBodyBytes: 1024)])
        #expect(config.logLevel == .info)
    }

    @Test("malformed or ambiguous JSON is one --config problem, which never quotes the file", arguments: [
        #"{"clientSecret": "hunter2", "clientSecret": "hunter2"}"#,
        #"{"clientSecret": "hunter2",}"#,
        #"{"clientSecret": 'hunter2'}"#,
        #"{"clientSecret": "hunter2"} // hunter2"#,
        "{\"clientSecret\": \"hunter2\n\"}",
        #"{"clientSecret": "hunter2\uDC00"}"#,
        #"{"loops": NaN, "clientSecret": "hunter2"}"#,
        "",
    ])
    func malformed(json: String) throws {
        let problem = try fileProblem(Array(json.utf8))
        #expect(problem?.setting == "--config")
        #expect(problem?.message.contains("is not valid JSON (") == true, "\(String(describing: problem))")
        #expect(problem?.message.contains("hunter2") == false)
    }

    @Test("the duplicate-key refusal says so, with the offset")
    func duplicateMessage() throws {
        let problem = try fileProblem(Array(#"{"loops": 2, "loops": 3}"#.utf8))
        #expect(problem?.message.hasSuffix("is not valid JSON (duplicate key in object at byte 13)") == true)
    }

    @Test("a UTF-8 byte order mark is skipped; invalid UTF-8 is refused")
    func encoding() throws {
        let file = try TemporaryConfigFile(bytes: [0xEF, 0xBB, 0xBF] + Array(#"{"loops": 2}"#.utf8))
        defer { file.remove() }
        #expect(try loadConfig(file: file.path).eventLoops == 2)
        let bomError = try fileProblem([0xEF, 0xBB, 0xBF] + Array(#"{"loops": x}"#.utf8))
        #expect(bomError?.message.hasSuffix("at byte 13)") == true, "\(String(describing: bomError))")
        let latin1 = try fileProblem(Array(#"{"clientId": "caf"#.utf8) + [0xE9] + Array(#""}"#.utf8))
        #expect(latin1?.message.contains("invalid UTF-8") == true)
    }

    @Test("a directory cannot be read; a file over 1 MiB is refused")
    func unreadable() throws {
        let directory = FileManager.default.temporaryDirectory.path
        #expect(try loadProblems(file: directory).map(\.message) == ["the file \(directory) cannot be read"])
        #expect(try loadProblems(file: "/nonexistent/x.json").map(\.message) == ["the file /nonexistent/x.json does not exist"])
        let padding = [UInt8](repeating: 0x20, count: 1 << 20)
        let problem = try fileProblem(Array("{}".utf8) + padding)
        #expect(problem?.message.hasSuffix("is larger than 1048576 bytes") == true)
        let file = try TemporaryConfigFile(bytes: Array(#"{"loops": 3}"#.utf8) + padding.dropLast(12))
        defer { file.remove() }
        #expect(try loadConfig(file: file.path).eventLoops == 3)
    }

    @Test("BFF_ROUTES text is read as strictly as the file")
    func routesText() throws {
        let duplicate = #"[{"prefix":"/a/","prefix":"/b/","upstream":"https://a/","token":"none"}]"#
        let problems = try loadProblems(["BFF_ROUTES": duplicate])
        #expect(problems.map(\.setting) == ["BFF_ROUTES"])
        #expect(problems.first?.message == "is not valid JSON (duplicate key in object at byte 17)")
        #expect(try loadProblems(["BFF_ROUTES": "[1,]"]).map(\.setting) == ["BFF_ROUTES"])
        #expect(try loadConfig(["BFF_ROUTES": "  []  "]).routes.isEmpty)
    }

    @Test("the processor count is what Foundation reported")
    func processors() {
        #expect(Host.onlineProcessorCount == ProcessInfo.processInfo.activeProcessorCount)
    }

    /// `taskset -c 0`, on a thread of its own (an affinity belongs to the
    /// thread that sets it): one loop by default, not one per processor online.
    @Test("the default loop count follows the affinity mask")
    func loopsFollowTheAffinityMask() async throws {
        let counts: (Int, Int) = await withCheckedContinuation { done in
            Thread {
                var first = [UInt8](repeating: 0, count: 128)
                first[0] = 1
                let pinned = sched_setaffinity(0, first.count, &first) == 0
                let config = try? loadConfig([:])
                done.resume(returning: (pinned ? 1 : -1, config?.eventLoops ?? -1))
            }.start()
        }
        #expect(counts == (1, 1))
    }

    @Test("trimming matches Foundation's character sets", arguments: [
        "", " ", "x", " x ", "\t x\t", "\n x \r\n", "\u{A0}x\u{3000}", "\u{2028}x\u{2029}", "\u{85}x\u{85}",
        "\u{B}\u{C}x", "x y", " \u{200B}x", "\u{200C}x", "\u{FEFF}x", "\u{180E}x", "\u{1680}x\u{202F}", "e\u{301} ", " \u{301}x", "\r\n", "😀 ",
    ])
    func trimming(text: String) {
        #expect(Lexical.trimmingWhitespace(text[...], newlines: true) == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(Lexical.trimmingWhitespace(text[...], newlines: false) == text.trimmingCharacters(in: .whitespaces))
    }
}
