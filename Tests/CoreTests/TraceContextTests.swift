import Core
import Testing

/// W3C `traceparent` values: read strictly, written exactly.
@Suite("Trace context")
struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func aValidValueIsReadAndWrittenBack() throws {
        let trace = try #require(TraceContext(traceparent: Self.valid))
        #expect(trace.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(trace.parent == 0x00F0_67AA_0BA9_02B7)
        #expect(trace.flags == 1)
        #expect(trace.isContinued)
        #expect(trace.traceparent(span: 0x00F0_67AA_0BA9_02B7) == Self.valid)
        #expect(trace.traceparent(span: 0xAB) == "00-4bf92f3577b34da6a3ce929d0e0e4736-00000000000000ab-01")
    }

    @Test(arguments: [
        "", "00", String(valid.dropLast()), valid + "0", valid + "-",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // another version
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero parent id
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01",
        " 0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-+bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ])
    func anythingElseIsRefused(_ value: String) {
        #expect(TraceContext(traceparent: value) == nil)
    }

    @Test func everyDigitIsWrittenAsSwiftFormatsIt() {
        var generator = SystemRandomNumberGenerator()
        let values: [UInt64] = [0, 1, 9, 10, 15, 16, 0xFF, .max, 0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210]
            + (0..<1000).map { _ in generator.next() }
        for value in values {
            let expected = String(value, radix: 16).leftPadded(to: 16) + String(~value | 1, radix: 16).leftPadded(to: 16)
            #expect(TraceContext(high: value, low: ~value | 1).traceID == expected, "\(value)")
        }
    }

    @Test func spanIDsAreFreshAndNeverZero() {
        let ids = (0..<10_000).map { _ in SpanIDs.next() }
        #expect(Set(ids).count == ids.count)
        #expect(!ids.contains(0))
    }

    @Test func aStartedTraceIsNewAndHasNoParent() {
        let (first, second) = (SpanIDs.startedTrace(), SpanIDs.startedTrace())
        #expect(first.traceID != second.traceID)
        #expect(!first.isContinued && first.flags == TraceContext.startedFlags)
        #expect(first.traceID.count == 32 && first.traceID != String(repeating: "0", count: 32))
        #expect(TraceContext(high: 0, low: 0).traceID == "00000000000000000000000000000001", "never all zero")
    }
}

extension String {
    /// This text with zeros before it, `count` characters long.
    func leftPadded(to count: Int) -> String { String(repeating: "0", count: max(0, count - self.count)) + self }
}
