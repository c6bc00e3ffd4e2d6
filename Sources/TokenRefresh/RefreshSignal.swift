import Crypto
import Modgud

/// How a refresh ended, as its waiters learn it.
public enum RefreshSignal: Sendable, Equatable {
    /// New tokens are in the session record.
    case refreshed
    /// The session ended (Modgud refused the refresh token).
    case ended
    /// Modgud answered 429: waiters answer with the same 429 (its
    /// Retry-After, RateLimit-* and Content-Type fields and its body)
    /// rather than ask again.
    case rateLimited(fields: [Field], body: [UInt8])
    /// Modgud could not be asked or did not answer; the session stays.
    case unavailable

    /// The outcome as bytes, exact whatever they hold: `refreshed`,
    /// `ended`, `unavailable`, or `rate_limited <body>[ <name>:<value>]…`
    /// with the body and each field's name and value in unpadded base64url
    /// (so a body with NUL bytes or invalid UTF-8, or a value with obs-text,
    /// comes out as it went in). No line break, no space inside a part.
    public var payload: [UInt8] {
        switch self {
        case .refreshed: return Array("refreshed".utf8)
        case .ended: return Array("ended".utf8)
        case .unavailable: return Array("unavailable".utf8)
        case .rateLimited(let fields, let body):
            var text = "rate_limited " + Base64URL.encode(body)
            for field in fields { text += " " + Base64URL.encode(field.name) + ":" + Base64URL.encode(field.value) }
            return Array(text.utf8)
        }
    }

    /// The outcome `payload` encodes, or nil for anything else.
    public init?(payload: ArraySlice<UInt8>) {
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
            var fields: [Field] = []
            for field in parts.dropFirst(2) {
                let pair = field.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
                guard pair.count == 2, let name = Base64URL.decode(utf8: pair[0]), !name.isEmpty,
                      let value = Base64URL.decode(utf8: pair[1]) else { return nil }
                fields.append(Field(name: name, value: value))
            }
            self = .rateLimited(fields: fields, body: body)
        default: return nil
        }
    }

    /// Modgud's 429 as waiters relay it: the fields that travel with it
    /// (`ModgudReply.isRateLimitField`) and its body.
    public static func rateLimited(_ reply: ModgudReply) -> RefreshSignal {
        .rateLimited(fields: reply.rateLimitFieldBytes.map { Field(name: $0.name, value: $0.value) }, body: reply.body)
    }

    /// One field of a relayed 429, as bytes.
    public struct Field: Sendable, Equatable {
        /// The field's name.
        public var name: [UInt8]
        /// The field's value, exactly as received.
        public var value: [UInt8]

        /// A field with the given name and value bytes.
        public init(name: [UInt8], value: [UInt8]) {
            self.name = name
            self.value = value
        }

        /// A field from text.
        public init(_ name: String, _ value: String) {
            self.init(name: Array(name.utf8), value: Array(value.utf8))
        }
    }
}
