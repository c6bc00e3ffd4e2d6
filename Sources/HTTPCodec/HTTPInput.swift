/// A reader's unconsumed bytes, with the scans every HTTP/1.1 reader needs:
/// lines, ranges as strings or slices, whitespace trimming. Offsets are
/// into `bytes`; nothing is copied.
public struct HTTPInput {
    /// The bytes being read.
    public let bytes: UnsafeRawBufferPointer

    /// Reads `bytes`.
    @inlinable
    public init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// How many bytes there are.
    @inlinable
    public var count: Int { bytes.count }

    /// The byte at `offset`.
    @inlinable @inline(__always)
    public subscript(offset: Int) -> UInt8 { bytes[offset] }

    /// The bytes in `range` as a String (ASCII, or UTF-8 with invalid
    /// sequences replaced by U+FFFD).
    @inlinable @inline(__always)
    public func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// The bytes in `range`.
    @inlinable @inline(__always)
    public func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[range])
    }

    /// Whether the bytes in `range` equal `lowercase` (lowercase ASCII)
    /// ignoring ASCII case.
    @inlinable @inline(__always)
    public func equalsIgnoringCase(_ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        HTTPHeaders.equals(slice(range).assumingMemoryBound(to: UInt8.self), lowercase: lowercase)
    }

    /// The first offset in `range` holding `byte`.
    @inlinable @inline(__always)
    public func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while i < range.upperBound {
            if bytes[i] == byte { return i }
            i += 1
        }
        return nil
    }

    /// The first offset at or after `start` (before `end`) that is not SP or HTAB.
    @inlinable @inline(__always)
    public func skippingWhitespace(from start: Int, to end: Int) -> Int {
        var i = start
        while i < end, HTTPByte.isWhitespace(bytes[i]) { i += 1 }
        return i
    }

    /// `range` without leading and trailing SP / HTAB.
    @inlinable @inline(__always)
    public func trimmingWhitespace(_ range: Range<Int>) -> Range<Int> {
        let lower = skippingWhitespace(from: range.lowerBound, to: range.upperBound)
        var upper = range.upperBound
        while upper > lower, HTTPByte.isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }
}

// MARK: - Lines

extension HTTPInput {
    /// The outcome of looking for the end of a line.
    public enum LineScan {
        /// The line's content ends at `end`; the next line starts at `next`
        /// (after CRLF, or a bare LF where allowed).
        case found(end: Int, next: Int)
        /// No line end yet; resume scanning at this offset.
        case incomplete(resumeAt: Int)
        /// The line end cannot come before `limit`.
        case tooLong
    }

    /// Looks for the line end from `start`; its LF must sit before `limit`.
    /// A line ends in CRLF, or also in a bare LF when `bareLF` allows it;
    /// any other CR or LF throws, and so does any other control character
    /// but HTAB: no line of a message (start line, field, chunk line,
    /// trailer) may hold one.
    @inlinable
    public func scanLine(from start: Int, limit: Int, bareLF: Bool) throws(HTTPParseError) -> LineScan {
        let end = Swift.min(bytes.count, limit)
        var i = firstControl(from: start, to: end)
        while i < end {
            switch bytes[i] {
            case HTTPByte.tab:
                i = firstControl(from: i + 1, to: end)
            case HTTPByte.cr:
                if i + 1 >= limit { return .tooLong }
                if i + 1 == bytes.count { return .incomplete(resumeAt: i) }
                guard bytes[i + 1] == HTTPByte.lf else { throw .malformed("bare CR") }
                return .found(end: i, next: i + 2)
            case HTTPByte.lf:
                guard bareLF else { throw .malformed("bare LF line ending") }
                return .found(end: i, next: i + 1)
            default:
                throw .malformed("control character")
            }
        }
        return bytes.count >= limit ? .tooLong : .incomplete(resumeAt: end)
    }

    /// The first offset in `start..<end` holding a control character or
    /// DEL, or `end`. Tests eight bytes at a time.
    @inlinable @inline(__always)
    func firstControl(from start: Int, to end: Int) -> Int {
        var i = start
        while i + 8 <= end, !HTTPByte.hasControl(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
            i += 8
        }
        while i < end, !HTTPByte.isControl(bytes[i]) { i += 1 }
        return i
    }

    /// `base + length` without trapping on overflow.
    @inlinable
    public static func offset(_ base: Int, plus length: Int) -> Int {
        let (sum, overflow) = base.addingReportingOverflow(Swift.max(length, 0))
        return overflow ? Int.max : sum
    }
}
