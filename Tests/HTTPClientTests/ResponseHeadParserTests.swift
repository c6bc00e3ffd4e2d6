import HTTP
import Testing
@testable import HTTPClient

/// What libcurl's header lines make of a head once the final one is read.
@Suite("Response head parser: after the final head")
struct ResponseHeadParserTests {
    static func feed(_ parser: inout ResponseHeadParser, _ lines: [String]) -> [ResponseHeadParser.Step] {
        lines.map { line in Array(line.utf8).withUnsafeBufferPointer { parser.consume($0) } }
    }

    static let head = ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "X-A: 1\r\n", "\r\n"]

    /// Once body bytes have come, a trailer line that reads like a status
    /// line is a trailer: the status and fields stay those of the answer
    /// (a whole answer's caller reads them only at its end).
    @Test func aTrailerThatReadsLikeAStatusLineChangesNothing() {
        var parser = ResponseHeadParser()
        #expect(Self.feed(&parser, Self.head).last == .finalHead)
        parser.bodyArrived()
        #expect(Self.feed(&parser, ["HTTP/1.1 500 Oops\r\n", "X-B: 2\r\n", "\r\n"]) == [.more, .more, .more])
        #expect(parser.status == 200)
        #expect(parser.fields.map(\.name) == ["Transfer-Encoding", "X-A"])
    }

    /// Trailers stay within their limit however they read.
    @Test func trailersThatReadLikeStatusLinesCountAgainstTheLimit() {
        var parser = ResponseHeadParser()
        _ = Self.feed(&parser, Self.head)
        parser.bodyArrived()
        let line = "HTTP/1.1 200 " + String(repeating: "x", count: 1000) + "\r\n"
        let steps = Self.feed(&parser, Array(repeating: line, count: 20))
        #expect(steps.contains(.refused), "past 16 KiB of trailers")
    }

    /// Before any body byte, a new status line is an answer to the request
    /// sent again (libcurl's own retry), read afresh.
    @Test func aStatusLineBeforeTheBodyStartsAnotherHead() {
        var parser = ResponseHeadParser()
        _ = Self.feed(&parser, Self.head)
        #expect(Self.feed(&parser, ["HTTP/1.1 503 Busy\r\n", "\r\n"]) == [.more, .finalHead])
        #expect(parser.status == 503)
    }
}
