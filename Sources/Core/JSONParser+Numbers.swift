extension JSONParser {
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. Integers
    /// that fit 64 bits are read digit by digit; everything else is handed,
    /// already checked, to the standard library's correctly rounded
    /// conversion, and refused when it is not finite.
    mutating func parseNumber() throws(JSONError) -> JSON {
        let start = index
        var position = index
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw JSONError(.invalidNumber, at: start) }

        // Accumulated as a negative number, so that Int64.min fits.
        var negated: Int64 = 0
        var overflow = false
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw JSONError(.invalidNumber, at: start) }
        } else {
            while position < bytes.count, isDigit(bytes[position]) {
                if !overflow {
                    let (times10, o1) = negated.multipliedReportingOverflow(by: 10)
                    let (next, o2) = times10.subtractingReportingOverflow(Int64(bytes[position] - UInt8(ascii: "0")))
                    overflow = o1 || o2
                    negated = next
                }
                position += 1
            }
        }

        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position = try digits(after: position, numberStart: start)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            if position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "+") || bytes[position + 1] == UInt8(ascii: "-") {
                position += 1
            }
            position = try digits(after: position, numberStart: start)
        }
        index = position

        if isInteger, !overflow {
            if bytes[start] != UInt8(ascii: "-") {
                if negated == .min { return .double(9_223_372_036_854_775_808) }
                return .int(-negated)
            }
            return .int(negated)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONError(.numberOutOfRange, at: start) }
        return .double(value)
    }

    /// One or more digits after the byte at `position` (`.`, `e`, or a
    /// sign); returns the index after them.
    private func digits(after position: Int, numberStart: Int) throws(JSONError) -> Int {
        var next = position + 1
        guard next < bytes.count, isDigit(bytes[next]) else { throw JSONError(.invalidNumber, at: numberStart) }
        while next < bytes.count, isDigit(bytes[next]) { next += 1 }
        return next
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
}
