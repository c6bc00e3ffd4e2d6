/// The status line of an HTTP/1.x response (RFC 9112 §4), as the gateway's
/// upstream readers accept it.
public enum StatusLine {
    /// `HTTP/1.x NNN reason` (no line end): the minor version (0 or 1) and
    /// the status (100 or more). The reason may be empty or absent, and
    /// holds no control but HTAB.
    @inlinable
    public static func parse(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> (minor: Int, status: Int) {
        guard line.count >= 12, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, // HTTP
              line[4] == HTTPByte.slash, line[5] == 0x31, line[6] == HTTPByte.dot, // /1.
              line[7] == 0x30 || line[7] == 0x31, line[8] == HTTPByte.space else {
            throw .malformed("malformed status line")
        }
        var status = 0
        for index in 9..<12 {
            let digit = line[index]
            guard HTTPByte.isDigit(digit) else { throw .malformed("malformed status line") }
            status = status * 10 + Int(digit &- HTTPByte.zero)
        }
        guard status >= 100, line.count == 12 || line[12] == HTTPByte.space else {
            throw .malformed("malformed status line")
        }
        guard FieldGrammar.isFieldValue(UnsafeRawBufferPointer(rebasing: line[12...])) else {
            throw .malformed("control character")
        }
        return (Int(line[7] &- HTTPByte.zero), status)
    }
}
