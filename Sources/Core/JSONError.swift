/// Why a document was refused, and where: a fixed reason and the byte
/// offset (from 0) at which the parser stopped.
///
/// It never quotes the input, not even a key: documents carry tokens,
/// passwords and personal data, and errors end up in logs and responses.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, as a short fixed sentence.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        case unexpectedEnd = "unexpected end of input"
        case expectedValue = "expected a value"
        case invalidLiteral = "invalid literal (true, false and null are lower-case)"
        case expectedKey = "expected a string key"
        case expectedColon = "expected ':' after a key"
        case expectedCommaOrBracket = "expected ',' or ']'"
        case expectedCommaOrBrace = "expected ',' or '}'"
        case trailingComma = "trailing comma"
        case trailingCharacters = "unexpected data after the value"
        case invalidNumber = "invalid number"
        case numberOutOfRange = "number out of range"
        case invalidEscape = "invalid escape sequence"
        case loneSurrogate = "unpaired surrogate in \\u escape"
        case controlCharacter = "unescaped control character in string"
        case invalidUTF8 = "invalid UTF-8"
        case duplicateKey = "duplicate key in object"
        case tooDeep = "nesting too deep"
        case documentTooLarge = "document too large"
        case stringTooLong = "string too long"
    }

    public let reason: Reason
    /// The byte offset in the document where the problem was found.
    public let offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// `duplicate key in object at byte 42`.
    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}
