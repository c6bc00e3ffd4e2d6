/// A value that must never be printed: tokens, codes, cookies, client
/// secrets, `mfa_token`s. Every way Swift turns a value into text
/// (`description`, `debugDescription`, string interpolation, `dump`,
/// reflection) yields `<redacted>`; the value is reached only through
/// `revealed`, which makes each use visible in review.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let value: String

    public init(_ value: String) { self.value = value }

    /// The secret itself. Use only where it must leave the process (an
    /// upstream request, a sealed record), never in a log line or error.
    public var revealed: String { value }

    public var isEmpty: Bool { value.isEmpty }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
