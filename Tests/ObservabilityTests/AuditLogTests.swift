import Core
import Foundation
import Testing
@testable import Observability

/// The audit stream's lines: the fixed key order, secrets redacted, and a
/// file sink that appends.
@Suite("Audit log")
struct AuditLogTests {
    @Test func aLineHasTheCommonKeysFirstThenTheEventsOwn() throws {
        let capture = LogCapture()
        AuditLog(sink: .capturing(capture)).record("audit.signin.failed", requestID: "r-1", traceID: "t", address: "192.0.2.1",
                                                   [("method", "otp"), ("reason", "invalid_grant"), ("code", .secret(Secret("123456")))])
        let line = try #require(capture.lines.first)
        #expect(line.hasPrefix(#"{"ts":""#))
        let tail = try #require(line.range(of: #""event""#).map { line[$0.lowerBound...] })
        #expect(tail == #""event":"audit.signin.failed","requestId":"r-1","traceId":"t","address":"192.0.2.1","method":"otp","reason":"invalid_grant","code":"<redacted>"}"#)
        #expect(!line.contains("123456"))
    }

    @Test func offWritesNothing() {
        #expect(!AuditLog.off.isEnabled)
        AuditLog.off.record("audit.x", requestID: "r", traceID: "t", address: "a")
    }

    @Test func aFileSinkAppendsLines() throws {
        let path = NSTemporaryDirectory() + "audit-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "earlier\n".write(toFile: path, atomically: false, encoding: .utf8)
        let log = AuditLog(sink: try LogSink.appending(toFile: path))
        log.record("audit.one", requestID: "r1", traceID: "t1", address: "a")
        log.record("audit.two", requestID: "r2", traceID: "t2", address: "a")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3 && lines[0] == "earlier")
        #expect(lines[1].contains(#""event":"audit.one""#) && lines[2].contains(#""event":"audit.two""#))
        #expect(throws: (any Error).self) { _ = try LogSink.appending(toFile: "/nonexistent-dir/audit.log") }
    }
}
