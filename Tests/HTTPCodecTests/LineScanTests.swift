import HTTPCodec
import Testing

/// Lines end in CRLF, or also in a bare LF where a reader allows it; any
/// other control but HTAB is refused wherever it stands.
struct LineScanTests {
    enum Outcome: Equatable {
        case found(end: Int, next: Int)
        case incomplete(Int)
        case tooLong
        case refused(String)
    }

    static func scan(_ text: String, limit: Int = 64, bareLF: Bool) -> Outcome {
        do {
            return try withInput(text) { (input) throws(HTTPParseError) in
                switch try input.scanLine(from: 0, limit: limit, bareLF: bareLF) {
                case .found(let end, let next): .found(end: end, next: next)
                case .incomplete(let resumeAt): .incomplete(resumeAt)
                case .tooLong: .tooLong
                }
            }
        } catch {
            return .refused(error.reason)
        }
    }

    @Test(arguments: [
        ("abc\r\nrest", Outcome.found(end: 3, next: 5), Outcome.found(end: 3, next: 5)),
        ("a\tb\r\n", .found(end: 3, next: 5), .found(end: 3, next: 5)),
        ("\r\n", .found(end: 0, next: 2), .found(end: 0, next: 2)),
        ("abc\nrest", .refused("bare LF line ending"), .found(end: 3, next: 4)),
        ("\n", .refused("bare LF line ending"), .found(end: 0, next: 1)),
        ("abc", .incomplete(3), .incomplete(3)),
        ("abc\r", .incomplete(3), .incomplete(3)),
        ("a\rb\r\n", .refused("bare CR"), .refused("bare CR")),
        ("a\u{0}b\r\n", .refused("control character"), .refused("control character")),
        ("a\u{7F}\r\n", .refused("control character"), .refused("control character")),
        ("abcdefghijklmnop\u{1B}\r\n", .refused("control character"), .refused("control character")),
    ])
    func linesEndInCRLFOrWhereAllowedABareLF(text: String, strict: Outcome, lenient: Outcome) {
        #expect(Self.scan(text, bareLF: false) == strict)
        #expect(Self.scan(text, bareLF: true) == lenient)
    }

    /// The LF must sit before the limit.
    @Test(arguments: [
        ("abc\r\n", 5, Outcome.found(end: 3, next: 5)),
        ("abcd\r\n", 5, .tooLong),
        ("abcde", 5, .tooLong),
        ("abc\r", 4, .tooLong),
        ("abc", 5, .incomplete(3)),
    ])
    func theLineEndMustComeBeforeTheLimit(text: String, limit: Int, outcome: Outcome) {
        #expect(Self.scan(text, limit: limit, bareLF: false) == outcome)
    }
}
