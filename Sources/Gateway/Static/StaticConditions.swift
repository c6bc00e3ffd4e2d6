import HTTP

/// What a request asks of a static answer, read from its fields in one
/// pass: the encodings it takes, whether it takes HTML, and which
/// validators it already holds (`If-None-Match`).
struct StaticConditions {
    /// `br` is acceptable (`Accept-Encoding`, q above 0, or `*`).
    var takesBrotli = false
    /// `gzip` is acceptable.
    var takesGzip = false
    /// `Accept` names `text/html` with q above 0.
    var takesHTML = false
    /// The `If-None-Match` fields, by index.
    private var noneMatch: [Int] = []
    private let headers: HTTPHeaders

    init(_ headers: HTTPHeaders) {
        self.headers = headers
        var (brotli, gzip, star): (Bool?, Bool?, Bool?) = (nil, nil, nil)
        for index in 0..<headers.count {
            if headers.nameEquals(at: index, lowercase: "accept-encoding") {
                headers.withField(at: index) { _, value in
                    ListField.items(value) { token, refused in
                        if HTTPHeaders.equals(token, lowercase: "br") { brotli = !refused }
                        else if HTTPHeaders.equals(token, lowercase: "gzip") { gzip = !refused }
                        else if HTTPHeaders.equals(token, lowercase: "*") { star = !refused }
                    }
                }
            } else if headers.nameEquals(at: index, lowercase: "accept") {
                headers.withField(at: index) { _, value in
                    ListField.items(value) { token, refused in
                        if !refused, HTTPHeaders.equals(token, lowercase: "text/html") { takesHTML = true }
                    }
                }
            } else if headers.nameEquals(at: index, lowercase: "if-none-match") {
                noneMatch.append(index)
            }
        }
        takesBrotli = brotli ?? star ?? false
        takesGzip = gzip ?? star ?? false
    }

    /// Whether `If-None-Match` names `etag` (weak comparison: a `W/`
    /// prefix is ignored) or is `*`: the client holds this representation.
    func holds(_ etag: [UInt8]) -> Bool {
        for index in noneMatch {
            let found = headers.withField(at: index) { _, value in
                var found = false
                ListField.elements(value) { element in
                    var tag = element
                    if tag.count == 1, tag[0] == UInt8(ascii: "*") { found = true }
                    if tag.count > 2, tag[0] == UInt8(ascii: "W"), tag[1] == UInt8(ascii: "/") {
                        tag = UnsafeBufferPointer(rebasing: tag[2...])
                    }
                    if tag.elementsEqual(etag) { found = true }
                }
                return found
            }
            if found { return true }
        }
        return false
    }
}
