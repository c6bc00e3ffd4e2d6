import Core

/// What a pending app hand-off code holds (Docs/handoff.md): the app's
/// S256 challenge and the browser session's content that moved into it,
/// with the time its user signed in. Printing it shows nothing secret.
///
/// Plaintext of the sealed code record, format 1:
/// `format (1) = 1 · expiresAt (8) · challenge (lp) · session record (lp)`,
/// the session record in `SessionRecord`'s format.
public struct AppLoginHandover: Sendable, CustomStringConvertible, CustomReflectable {
    static let format: UInt8 = 1

    /// The app's `BASE64URL(SHA256(verifier))` from its request.
    public let challenge: String
    /// The moved session's content: subject, claims, `sid` and tokens.
    public let data: SessionData
    /// When the user signed in (Unix ms), kept by the session the code becomes.
    public let authenticatedAt: UInt64
    /// When the code stops being redeemable (Unix ms).
    public let expiresAt: UInt64

    init(challenge: String, data: SessionData, authenticatedAt: UInt64, expiresAt: UInt64) {
        self.challenge = challenge
        self.data = data
        self.authenticatedAt = authenticatedAt
        self.expiresAt = expiresAt
    }

    func encoded() -> [UInt8] {
        let session = SessionRecord(data: data, authenticatedAt: authenticatedAt, absoluteExpiresAt: expiresAt).encoded()
        var writer = ByteWriter(capacity: 64 + challenge.utf8.count + session.count)
        writer.byte(Self.format)
        writer.uint64(expiresAt)
        writer.string(challenge)
        writer.lengthPrefixed(session)
        return writer.bytes
    }

    /// Decodes format 1, or nil for anything else.
    init?(decoding bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard reader.byte() == Self.format, let expiresAt = reader.uint64(), let challenge = reader.string(),
              let session = reader.lengthPrefixed(), reader.isAtEnd,
              let record = SessionRecord(decoding: session)
        else { return nil }
        self.init(challenge: challenge, data: record.data, authenticatedAt: record.authenticatedAt, expiresAt: expiresAt)
    }

    /// Times only.
    public var description: String { "AppLoginHandover(authenticatedAt: \(authenticatedAt), expiresAt: \(expiresAt))" }

    /// No children: nothing leaks through `dump` or reflection.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
