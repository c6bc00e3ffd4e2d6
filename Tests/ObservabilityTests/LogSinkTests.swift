#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Observability

@Suite("LogSink")
struct LogSinkTests {
    @Test("a descriptor sink writes newline-terminated lines in one piece")
    func descriptorSink() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let logger = Logger(sink: LogSink(target: .descriptor(FileDescriptorWriter(descriptor: fds[1]))))
        logger.info("first", ["n": 1])
        logger.info("second", ["text": .string(String(repeating: "x", count: 3000))])
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while received.filter({ $0 == UInt8(ascii: "\n") }).count < 2 {
            let count = read(fds[0], &chunk, chunk.count)
            try #require(count > 0)
            received += chunk[0..<count]
        }
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(try parseLine(String(lines[0]))["event"] as? String == "first")
        #expect(try parseLine(String(lines[1]))["event"] as? String == "second")
    }

    @Test("a closure sink receives each line without its newline")
    func closureSink() {
        let capture = LogCapture()
        let logger = Logger(sink: LogSink { capture.append("got " + $0) })
        logger.info("x")
        #expect(capture.lines.count == 1)
        #expect(capture.lines[0].hasPrefix("got {") && capture.lines[0].hasSuffix("}"))
        capture.removeAll()
        #expect(capture.lines.isEmpty)
    }
}
