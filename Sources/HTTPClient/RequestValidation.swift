import HTTPCodec

/// Checks that keep a request from smuggling bytes onto the wire: libcurl
/// sends methods, URLs and header lines as given.
enum RequestValidation {
    static func check(_ request: HTTPClientRequest) throws(HTTPClientError) {
        guard isToken(request.method.rawValue) else { throw .invalidRequest }
        let validURL = switch request.location {
        case .url(let url): isURLText(url)
        case .based(let base, let suffix): base.isURLText && (suffix.isEmpty || isURLText(suffix))
        }
        guard validURL else { throw .invalidURL }
        let headers = request.headers
        // A field checked as it was added (parsed from a request, say) is
        // not checked again.
        for index in 0..<headers.count where !headers.isChecked(at: index) {
            // A plain loop: `allSatisfy` with a closure made a call per byte.
            let valid = headers.withField(at: index) { name, value in
                guard !name.isEmpty else { return false }
                for byte in name where !FieldGrammar.isTokenByte(byte) { return false }
                return FieldGrammar.isFieldValue(UnsafeRawBufferPointer(value))
            }
            guard valid else { throw .invalidRequest }
        }
    }

    /// Not empty, and no space, control or DEL.
    static func isURLText(_ text: String) -> Bool {
        !text.isEmpty && allBytes(of: text, satisfy: { $0 > 0x20 && $0 != 0x7F })
    }

    /// RFC 9110 token: visible ASCII except delimiters.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && allBytes(of: text, satisfy: FieldGrammar.isTokenByte)
    }

    /// Over the contiguous bytes when the string has them (native strings
    /// do): an indexed loop instead of the view's iterator.
    @inline(__always)
    private static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !predicate(byte) { return false }
            return true
        } ?? text.utf8.allSatisfy(predicate)
    }
}
