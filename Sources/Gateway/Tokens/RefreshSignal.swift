import Crypto
import HTTP

/// How a refresh ended, as its waiters learn it.
enum RefreshSignal: Sendable, Equatable {
    /// New tokens are in the session record.
    case refreshed
    /// The session ended (Modgud refused the refresh token).
    case ended
    /// Modgud answered 429: waiters answer with the same 429 (its
    /// Retry-After, RateLimit-* and Content-Type fields and its body)
    /// rather than ask again.
    case rateLimited(headers: HTTPHeaders, body: [UInt8])
    /// Modgud could not be asked or did not answer; the session stays.
    case unavailable

    /// The outcome as bytes, exact whatever they hold: `refreshed`,
    /// `ended`, `unavailable`, or `rate_limited <body>[ <name>:<value>]…`
    /// with the body and each field's name and value in unpadded base64url
    /// (so a body with NUL bytes or invalid UTF-8, or a value with obs-text,
    /// comes out as it went in). No line break, no space inside a part.
    var payload: [UInt8] {
        switch self {
        case .refreshed: return Array("refreshed".utf8)
        case .ended: return Array("ended".utf8)
        case .unavailable: return Array("unavailable".utf8)
        case .rateLimited(let headers, let body):
            var text = "rate_limited " + Base64URL.encode(body)
            for index in 0..<headers.count {
                headers.withField(at: index) { name, value in
                    text += " " + Base64URL.encode(name) + ":" + Base64URL.encode(value)
                }
            }
            return Array(text.utf8)
        }
    }

    /// The outcome `payload` encodes, or nil for anything else.
    init?(payload: ArraySlice<UInt8>) {
        let space = UInt8(ascii: " ")
        let parts = payload.split(separator: space, omittingEmptySubsequences: false)
        guard let word = parts.first else { return nil }
        switch (word.elementsEqual("refreshed".utf8), word.elementsEqual("ended".utf8),
                word.elementsEqual("unavailable".utf8), word.elementsEqual("rate_limited".utf8)) {
        case (true, _, _, _) where parts.count == 1: self = .refreshed
        case (_, true, _, _) where parts.count == 1: self = .ended
        case (_, _, true, _) where parts.count == 1: self = .unavailable
        case (_, _, _, true) where parts.count >= 2:
            guard let body = Base64URL.decode(utf8: parts[1]) else { return nil }
            var headers = HTTPHeaders()
            for field in parts.dropFirst(2) {
                let pair = field.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
                guard pair.count == 2, let name = Base64URL.decode(utf8: pair[0]), !name.isEmpty,
                      let value = Base64URL.decode(utf8: pair[1]) else { return nil }
                name.withUnsafeBufferPointer { name in
                    value.withUnsafeBufferPointer { value in headers.add(name: name, value: value) }
                }
            }
            self = .rateLimited(headers: headers, body: body)
        default: return nil
        }
    }
}
