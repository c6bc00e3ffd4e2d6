import Core

/// A live session, as loaded or created by `SessionManager`: its content,
/// its times and the version a `compareAndSet` update fences on.
///
/// Printing it shows only the version and times.
public struct Session: Sendable, CustomStringConvertible, CustomReflectable {
    /// The content, in a box shared by copies of this value and by the
    /// memo entry the session was served from: a session is copied several
    /// times per request, and a copy then retains one reference instead of
    /// every string of the content. Copied on write (a refresh writes).
    private var content: Content

    /// The content.
    public internal(set) var data: SessionData {
        _read { yield content.data }
        set { content = Content(newValue) }
        _modify {
            if !isKnownUniquelyReferenced(&content) { content = Content(content.data) }
            yield &content.data
        }
    }
    /// When the user signed in (Unix ms).
    public let authenticatedAt: UInt64
    /// When the session ends whatever happens (Unix ms): sign-in plus the
    /// absolute timeout, cut at the refresh token's expiry.
    public internal(set) var absoluteExpiresAt: UInt64
    /// The record's fencing version in the store.
    public internal(set) var version: UInt64
    /// The key material derived from the cookie value.
    let handle: RecordHandle

    init(data: SessionData, authenticatedAt: UInt64, absoluteExpiresAt: UInt64, version: UInt64, handle: RecordHandle) {
        self.init(content: Content(data), authenticatedAt: authenticatedAt, absoluteExpiresAt: absoluteExpiresAt,
                  version: version, handle: handle)
    }

    init(content: Content, authenticatedAt: UInt64, absoluteExpiresAt: UInt64, version: UInt64, handle: RecordHandle) {
        self.content = content
        self.authenticatedAt = authenticatedAt
        self.absoluteExpiresAt = absoluteExpiresAt
        self.version = version
        self.handle = handle
    }

    /// The name of this session's refresh lock in the store. Derived from
    /// the cookie one way, like the record key: safe to log, useless as a
    /// cookie.
    public var lockName: String { handle.storeKey }

    /// The access token for `audience` (nil: the default one), when it
    /// expires (Unix ms, if known) and whether a refresh token can renew
    /// it. Read in place: `data` handed out as a value is a copy of the
    /// whole content, a reference per string, and the proxy asks this on
    /// every request.
    public func accessToken(for audience: String?) -> (token: Secret, expiresAt: UInt64?, renewable: Bool)? {
        let renewable = content.data.tokens.refreshToken != nil
        guard let audience else {
            return (content.data.tokens.accessToken, content.data.tokens.accessTokenExpiresAt, renewable)
        }
        return content.data.tokens.resources[audience].map { ($0.accessToken, $0.expiresAt, renewable) }
    }

    /// Version and times only.
    public var description: String {
        "Session(version: \(version), authenticatedAt: \(authenticatedAt), absoluteExpiresAt: \(absoluteExpiresAt))"
    }

    /// No children: nothing leaks through `dump` or reflection.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// A session's content, shared until written. `@unchecked Sendable`:
    /// `data` is written only through `Session.data`, which first copies a
    /// box that any other value still holds, so a shared box is never
    /// written.
    final class Content: @unchecked Sendable {
        /// `@exclusivity(unchecked)`: a box is written only while one
        /// value holds it, inside that value's own (statically checked)
        /// access, so no two accesses can overlap; the run-time check
        /// would cost every read of a session's content.
        @exclusivity(unchecked) var data: SessionData

        init(_ data: SessionData) {
            self.data = data
        }
    }
}
