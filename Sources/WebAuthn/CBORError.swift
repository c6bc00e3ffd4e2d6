/// Why CBOR input was refused, and where: a fixed reason and the byte
/// offset (from 0) at which the decoder stopped. Never quotes the input.
public struct CBORError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, as a short fixed sentence.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        case unexpectedEnd = "unexpected end of input"
        case trailingBytes = "unexpected data after the item"
        case indefiniteLength = "indefinite length not supported"
        case reservedAdditionalInformation = "reserved additional information (28-30)"
        case tagNotSupported = "tags not supported"
        case floatNotSupported = "floating-point values not supported"
        case simpleValueNotSupported = "simple value not supported"
        case invalidUTF8 = "text string is not valid UTF-8"
        case invalidMapKey = "map key is neither an integer nor a text string"
        case duplicateMapKey = "duplicate key in map"
        case tooDeep = "nesting too deep"
        case inputTooLarge = "input too large"
        case tooManyElements = "too many elements in an array or map"
        case stringTooLong = "string too long"
    }

    /// What was wrong.
    public let reason: Reason
    /// The byte offset where the problem was found.
    public let offset: Int

    /// An error for `reason` at byte `offset`.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// `duplicate key in map at byte 12`.
    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}
