/// Reads a comma-separated field value (RFC 9110 §5.6.1) in place, by
/// bytes: `Accept`, `Accept-Encoding`, `If-None-Match`.
enum ListField {
    /// Calls `body` with each non-empty element, trimmed of blanks.
    static func elements(_ value: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var start = 0
        for index in 0...value.count where index == value.count || value[index] == UInt8(ascii: ",") {
            let element = trimmed(UnsafeBufferPointer(rebasing: value[start..<index]))
            if !element.isEmpty { body(element) }
            start = index + 1
        }
    }

    /// Calls `body` with each element's value before its parameters and
    /// whether a `q` parameter refuses it (`q=0`, `q=0.000`).
    static func items(_ value: UnsafeBufferPointer<UInt8>, _ body: (_ token: UnsafeBufferPointer<UInt8>, _ refused: Bool) -> Void) {
        elements(value) { element in
            var token: UnsafeBufferPointer<UInt8>?
            var refused = false
            var start = 0
            for index in 0...element.count where index == element.count || element[index] == UInt8(ascii: ";") {
                let part = trimmed(UnsafeBufferPointer(rebasing: element[start..<index]))
                start = index + 1
                guard token != nil else {
                    token = part
                    continue
                }
                if part.count >= 2, part[0] | 0x20 == UInt8(ascii: "q"), part[1] == UInt8(ascii: "=") {
                    refused = isZero(UnsafeBufferPointer(rebasing: part[2...]))
                }
            }
            if let token { body(token, refused) }
        }
    }

    /// `0`, `0.`, or `0.` followed by zeros: a quality of zero.
    private static func isZero(_ quality: UnsafeBufferPointer<UInt8>) -> Bool {
        guard quality.first == UInt8(ascii: "0") else { return false }
        guard quality.count > 1 else { return true }
        return quality[1] == UInt8(ascii: ".") && quality.dropFirst(2).allSatisfy { $0 == UInt8(ascii: "0") }
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var (start, end) = (0, bytes.count)
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }
}
