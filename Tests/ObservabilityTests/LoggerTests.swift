import Core
import Foundation
import Testing
@testable import Observability

/// Parses one captured line as a JSON object, failing the test otherwise.
func parseLine(_ line: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return try #require(object as? [String: Any])
}

@Suite("Logger")
struct LoggerTests {
    let capture = LogCapture()
    var logger: Logger { Logger(level: .debug, sink: .capturing(capture)) }

    @Test("one JSON object per line, fixed key order")
    func lineShape() throws {
        logger.with("requestId", "r-1").info("http.access", ["status": 200, "route": "/api/", "ms": 1.5, "cached": false])
        let line = try #require(capture.lines.first)
        #expect(capture.lines.count == 1)
        #expect(!line.contains("\n"))
        let regex = #/^\{"ts":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","level":"info","event":"http\.access","requestId":"r-1","status":200,"route":"/api/","ms":1\.5,"cached":false\}$/#
        #expect(line.wholeMatch(of: regex) != nil, "\(line)")
        let object = try parseLine(line)
        #expect(object["status"] as? Int == 200)
        #expect(object["requestId"] as? String == "r-1")
    }

    @Test("the timestamp is the current UTC time")
    func timestampIsNow() throws {
        logger.info("tick")
        let object = try parseLine(try #require(capture.lines.first))
        let text = try #require(object["ts"] as? String)
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(parser.date(from: text))
        #expect(abs(date.timeIntervalSinceNow) < 5)
    }

    @Test("timestamps format as RFC 3339 with milliseconds", arguments: [
        (1_796_056_800, 123, "2026-11-30T16:40:00.123Z"),
        (951_868_799, 7, "2000-02-29T23:59:59.007Z"),
        (0, 0, "1970-01-01T00:00:00.000Z"),
    ])
    func timestampFormat(seconds: Int, milliseconds: Int, expected: String) {
        var buffer: [UInt8] = []
        Timestamp.append(seconds: seconds, milliseconds: milliseconds, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
    }

    @Test("strings are escaped so that every line parses back", arguments: [
        "plain", "quote \" inside", "back\\slash", "new\nline", "cr\rtab\t", "\u{0}nul", "\u{1}\u{1f}\u{7f}",
        "bell\u{8}\u{c}", "ünïcödé 🚀 𝄞", "</script>", "\u{2028}\u{2029}", "", "\"\\\"\\",
    ])
    func escaping(text: String) throws {
        logger.info(text, [text: .string(text)])
        let line = try #require(capture.lines.first)
        for byte in line.utf8 { #expect(byte >= 0x20, "raw control byte in \(line)") }
        let object = try parseLine(line)
        #expect(object["event"] as? String == text)
        #expect(object[text] as? String == text)
    }

    @Test("control characters use the short or \\u00XX form")
    func escapeForms() throws {
        logger.info("e", ["k": "a\"b\\c\nd\u{1}e\u{1f}"])
        let line = try #require(capture.lines.first)
        #expect(line.hasSuffix(#","k":"a\"b\\c\nd\u0001e\u001f"}"#))
    }

    @Test("a secret is never written in clear")
    func secretRedacted() throws {
        let secret = Secret("hunter2-super-secret")
        logger.with("session", .secret(secret)).warning("auth.refresh", ["token": .secret(secret), "note": "\(secret)"])
        let line = try #require(capture.lines.first)
        #expect(!line.contains("hunter2"))
        let object = try parseLine(line)
        #expect(object["token"] as? String == "<redacted>")
        #expect(object["session"] as? String == "<redacted>")
        #expect(object["note"] as? String == "<redacted>")
        #expect(LogValue.secret(secret).description == "<redacted>")
    }

    @Test("lines below the level are dropped", arguments: LogLevel.allCases)
    func filtering(minimum: LogLevel) throws {
        let logger = Logger(level: minimum, sink: .capturing(capture))
        for level in LogLevel.allCases { logger.log(level, "e.\(level)") }
        logger.debug("d"); logger.info("i"); logger.warning("w"); logger.error("x")
        let levels = try capture.lines.map { try parseLine($0)["level"] as? String }
        let expected = LogLevel.allCases.filter { $0 >= minimum }.map(\.rawValue)
        #expect(levels == expected + expected)
        #expect(logger.isEnabled(.error))
        #expect(logger.isEnabled(.debug) == (minimum == .debug))
    }

    @Test("metadata accumulates and does not leak between loggers")
    func metadata() throws {
        let base = logger.with("connection", 7)
        let request = base.with("requestId", "abc")
        base.info("a")
        request.info("b")
        request.with(level: .error).info("dropped")
        let first = try parseLine(capture.lines[0])
        let second = try parseLine(capture.lines[1])
        #expect(capture.lines.count == 2)
        #expect(first["connection"] as? Int == 7 && first["requestId"] == nil)
        #expect(second["connection"] as? Int == 7 && second["requestId"] as? String == "abc")
    }

    @Test("numbers: integers, doubles, non-finite as null")
    func numbers() throws {
        logger.info("n", ["i": -42, "d": 0.25, "big": .double(1e300), "nan": .double(.nan), "inf": .double(-.infinity)])
        let object = try parseLine(try #require(capture.lines.first))
        #expect(object["i"] as? Int == -42)
        #expect(object["d"] as? Double == 0.25)
        #expect(object["big"] as? Double == 1e300)
        #expect(object["nan"] is NSNull)
        #expect(object["inf"] is NSNull)
    }

    @Test("many threads logging at once produce whole lines")
    func concurrentLogging() async throws {
        let logger = self.logger
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<500 { logger.info("load", ["task": .int(task), "i": .int(index)]) }
                }
            }
        }
        #expect(capture.lines.count == 4000)
        for line in capture.lines { _ = try parseLine(line) }
    }
}

@Suite("LogLevel")
struct LogLevelTests {
    @Test("parses names", arguments: [
        ("debug", LogLevel.debug), ("INFO", .info), ("Warning", .warning), ("warn", .warning), ("error", .error),
    ])
    func parses(text: String, level: LogLevel) {
        #expect(LogLevel(parsing: text) == level)
    }

    @Test("refuses unknown names", arguments: ["", "trace", "fatal", " info", "inf"])
    func refuses(text: String) {
        #expect(LogLevel(parsing: text) == nil)
    }

    @Test("orders by severity")
    func order() {
        #expect(LogLevel.allCases.sorted() == [.debug, .info, .warning, .error])
        #expect(LogLevel.debug < .info && LogLevel.warning < .error && !(LogLevel.error < .error))
    }
}
