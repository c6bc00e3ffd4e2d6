import HTTPCodec

/// The parts of a 429 that travel to browsers, and the labels that keep
/// what Modgud sends within a small alphabet in metrics and logs.
extension ModgudReply {
    /// Whether a field of a 429 travels with it: Retry-After, RateLimit-*
    /// and Content-Type.
    public static func isRateLimitField(_ name: String) -> Bool {
        name.equalsIgnoringASCIICase("Retry-After") || name.equalsIgnoringASCIICase("Content-Type")
            || name.lowercased().hasPrefix("ratelimit")
    }

    /// The fields of this reply that travel with a 429, copied byte for
    /// byte (a value with obs-text stays as it was).
    public var rateLimitHeaders: HTTPHeaders {
        var kept = HTTPHeaders()
        for index in 0..<headers.count {
            let name = headers.withField(at: index) { name, _ in String(decoding: name, as: UTF8.self) }
            if Self.isRateLimitField(name) { kept.add(fieldAt: index, of: headers) }
        }
        return kept
    }

    /// `rateLimitHeaders` as name and value bytes, in order.
    public var rateLimitFieldBytes: [(name: [UInt8], value: [UInt8])] {
        let kept = rateLimitHeaders
        return (0..<kept.count).map { index in kept.withField(at: index) { name, value in (Array(name), Array(value)) } }
    }

    /// A 429 with `fields` (name and value bytes, in order) and `body`.
    public static func rateLimited(fields: [(name: [UInt8], value: [UInt8])], body: [UInt8]) -> ModgudReply {
        var headers = HTTPHeaders()
        for (name, value) in fields {
            name.withUnsafeBufferPointer { name in value.withUnsafeBufferPointer { headers.add(name: name, value: $0) } }
        }
        return ModgudReply(status: .tooManyRequests, headers: headers, body: body)
    }

    /// `text` cut to 40 letters, digits, `-`, `_` and `.`, or `unknown`:
    /// a metric label or log value stays small whatever Modgud sends.
    public static func label(_ text: String) -> String {
        let cleaned = text.prefix(40).filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
        return cleaned.isEmpty ? "unknown" : String(cleaned)
    }
}
