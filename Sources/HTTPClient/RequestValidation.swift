import HTTP

/// Checks that keep a request from smuggling bytes onto the wire: libcurl
/// sends methods, URLs and header lines as given.
enum RequestValidation {
    static func check(_ request: HTTPClientRequest) throws(HTTPClientError) {
        guard isToken(request.method.rawValue) else { throw .invalidRequest }
        guard !request.url.isEmpty, request.url.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw .invalidURL
        }
        for field in request.headers {
            guard isToken(field.name), isFieldValue(field.value) else { throw .invalidRequest }
        }
    }

    /// RFC 9110 token: visible ASCII except delimiters.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// A field value: no CR, LF or NUL (other controls but tab too).
    static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }
}
