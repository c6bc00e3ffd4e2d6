/// The field grammar of RFC 9110 §5 as every reader and writer of HTTP/1.1
/// in the gateway enforces it: token names, values of VCHAR, obs-text, SP
/// and HTAB, no obs-fold, no whitespace before the colon.
public enum FieldGrammar {
    /// A token character (RFC 9110 §5.6.2): what a field name or a method
    /// is made of.
    @inlinable @inline(__always)
    public static func isTokenByte(_ byte: UInt8) -> Bool { HTTPByte.isTChar(byte) }

    /// Whether every byte of `value` may stand in a field value (VCHAR,
    /// obs-text, SP, HTAB). Tests eight bytes at a time, and byte by byte
    /// only where a word holds a control character (a tab, or a refusal):
    /// a bearer token is a kilobyte of bytes.
    @inlinable
    public static func isFieldValue(_ value: UnsafeRawBufferPointer) -> Bool {
        HTTPByte.controlsPass(value) { $0 == HTTPByte.tab }
    }

    /// Splits the field line `line` of `input` (without its line end) into
    /// its name and its value without surrounding whitespace. A line
    /// starting with SP or HTAB (obs-fold), a name that is not a token,
    /// whitespace before the colon, and a missing colon are refused. The
    /// value's bytes are left to the caller: a line scanned by
    /// `HTTPInput.scanLine` holds no control but HTAB.
    @inlinable
    public static func splitField(_ input: HTTPInput, _ line: Range<Int>) throws(HTTPParseError)
        -> (name: Range<Int>, value: Range<Int>)
    {
        guard line.lowerBound < line.upperBound, !HTTPByte.isWhitespace(input[line.lowerBound]) else {
            throw .malformed(line.isEmpty ? "field without colon" : "obs-fold or leading whitespace")
        }
        var i = line.lowerBound
        while i < line.upperBound, HTTPByte.isTChar(input[i]) { i += 1 }
        guard i < line.upperBound else { throw .malformed("field without colon") }
        let stop = input[i]
        guard stop == HTTPByte.colon else {
            throw .malformed(HTTPByte.isWhitespace(stop) ? "whitespace before colon" : "invalid field name")
        }
        guard i > line.lowerBound else { throw .malformed("empty field name") }
        return (line.lowerBound..<i, input.trimmingWhitespace(i + 1..<line.upperBound))
    }

    /// A `Content-Length` value of `1*DIGIT` that fits in an Int, or nil.
    @inlinable
    public static func contentLength(_ input: HTTPInput, _ value: Range<Int>) -> Int? {
        guard !value.isEmpty else { return nil }
        var length = 0
        for i in value {
            let byte = input[i]
            guard HTTPByte.isDigit(byte) else { return nil }
            let (shifted, overflow1) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(byte &- HTTPByte.zero))
            guard !overflow1, !overflow2 else { return nil }
            length = sum
        }
        return length
    }

    /// Calls `body` with the range of each item of the comma-separated list
    /// in `value` (RFC 9110 §5.6.1), trimmed; empty items are skipped, or
    /// refused unless `emptyAllowed`.
    @inlinable
    public static func forEachListItem(_ input: HTTPInput, _ value: Range<Int>, emptyAllowed: Bool,
                                       _ body: (Range<Int>) throws(HTTPParseError) -> Void) throws(HTTPParseError) {
        var start = value.lowerBound
        while start <= value.upperBound {
            let end = input.firstIndex(of: HTTPByte.comma, in: start..<value.upperBound) ?? value.upperBound
            let item = input.trimmingWhitespace(start..<end)
            if !item.isEmpty {
                try body(item)
            } else if !emptyAllowed {
                throw .malformed("empty list item")
            }
            start = end + 1
        }
    }
}

extension FieldGrammar {
    /// `forEachListItem` for lists where empty items are skipped and the
    /// body cannot fail (`Connection`).
    @inlinable @inline(__always)
    public static func forEachListItemSkippingEmpty(_ input: HTTPInput, _ value: Range<Int>, _ body: (Range<Int>) -> Void) {
        var start = value.lowerBound
        while start <= value.upperBound {
            let end = input.firstIndex(of: HTTPByte.comma, in: start..<value.upperBound) ?? value.upperBound
            let item = input.trimmingWhitespace(start..<end)
            if !item.isEmpty { body(item) }
            start = end + 1
        }
    }
}

extension FieldGrammar {
    /// Splits a field line (without its line end) that no line scan has
    /// checked, as `splitField` does, and refuses a value holding a control
    /// character other than HTAB. Returns the name and the trimmed value.
    @inlinable
    public static func splitCheckedField(_ line: UnsafeRawBufferPointer) throws(HTTPParseError)
        -> (name: Range<Int>, value: Range<Int>)
    {
        let input = HTTPInput(bytes: line)
        let (name, value) = try splitField(input, 0..<line.count)
        guard isFieldValue(input.slice(value)) else { throw .malformed("control character") }
        return (name, value)
    }
}
