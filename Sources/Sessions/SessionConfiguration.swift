import Core

/// Every setting of the session layer, each default in one place.
public struct SessionConfiguration: Sendable, Hashable {
    /// How long the session cookie lives in the browser.
    public enum CookieLifetime: Sendable, Hashable {
        /// `Max-Age` = the seconds left until the session's absolute
        /// expiry: the browser drops the cookie when the server would
        /// refuse it anyway, and a restarted browser keeps the session
        /// until then (idle expiry is enforced server-side).
        case untilAbsoluteExpiry
        /// No `Max-Age`: the cookie ends with the browser session.
        case browserSession
    }

    /// The session cookie's name. Default `__Host-bff`; keep the `__Host-`
    /// prefix so the browser refuses it unless Secure, Path=/, no Domain.
    public var cookieName: String
    /// The pre-sign-in flow cookie's name. Default `__Host-bff-flow`.
    public var flowCookieName: String
    /// A session not used for this long ends. Default 30 minutes.
    public var idleTimeout: Duration
    /// A session ends this long after sign-in however much it is used, and
    /// never after the refresh token's own expiry when that is known.
    /// Default 12 hours.
    public var absoluteTimeout: Duration
    /// How long a pre-sign-in flow record lives. Default 10 minutes.
    public var flowLifetime: Duration
    /// Prefix of every key the Redis store writes (`bff:s:…`, `bff:l:…`,
    /// `bff:u:…`). Default `bff:`.
    public var keyPrefix: String
    /// Cookie persistence. Default `.untilAbsoluteExpiry`.
    public var cookieLifetime: CookieLifetime
    /// A session record whose plaintext would exceed this is refused at
    /// create/update (`SessionError.recordTooLarge`). Default 16 KiB; a
    /// realistic record is about 1.3 KB (Docs/sessions.md).
    public var maxRecordBytes: Int
    /// How many recently served sessions each manager remembers in memory
    /// (their derived keys and last opened record, see `SessionMemo`); 0
    /// turns the memory off. Default 1,024 (about 4 MB at most).
    public var rememberedSessions: Int
    /// The key material of the session directory: the key that seals each
    /// session's card (its entry in the user's session list) is derived
    /// from it, so every instance given the same secret reads the same
    /// cards. Nil: a random key per process (single instance, tests); cards
    /// sealed by another process do not open then. The gateway passes its
    /// client secret.
    public var directorySecret: Secret?

    /// The defaults, overridable one by one.
    public init(
        cookieName: String = "__Host-bff",
        flowCookieName: String = "__Host-bff-flow",
        idleTimeout: Duration = .seconds(30 * 60),
        absoluteTimeout: Duration = .seconds(12 * 60 * 60),
        flowLifetime: Duration = .seconds(10 * 60),
        keyPrefix: String = "bff:",
        cookieLifetime: CookieLifetime = .untilAbsoluteExpiry,
        maxRecordBytes: Int = 16 * 1024,
        rememberedSessions: Int = 1024,
        directorySecret: Secret? = nil
    ) {
        self.cookieName = cookieName
        self.flowCookieName = flowCookieName
        self.idleTimeout = idleTimeout
        self.absoluteTimeout = absoluteTimeout
        self.flowLifetime = flowLifetime
        self.keyPrefix = keyPrefix
        self.cookieLifetime = cookieLifetime
        self.maxRecordBytes = maxRecordBytes
        self.rememberedSessions = rememberedSessions
        self.directorySecret = directorySecret
    }

    /// A lookup renews the idle timeout only when this process has not
    /// renewed it for this long: a hundredth of the idle timeout, at most
    /// a minute (18 s at the default 30 minutes). A session so ends at
    /// most that much before a full idle timeout after its last request.
    var touchInterval: Duration { min(idleTimeout / 100, .seconds(60)) }

    /// Every problem at once, as log-safe sentences; empty when valid.
    public func problems() -> [String] {
        var problems: [String] = []
        for (label, name) in [("cookie name", cookieName), ("flow cookie name", flowCookieName)]
        where !CookieHeader.isToken(name) {
            problems.append("the \(label) must be a non-empty RFC 6265 token")
        }
        if cookieName == flowCookieName { problems.append("the session and flow cookie names must differ") }
        if idleTimeout < .seconds(1) { problems.append("the idle timeout must be at least 1 second") }
        if absoluteTimeout < .seconds(1) { problems.append("the absolute timeout must be at least 1 second") }
        if idleTimeout > absoluteTimeout { problems.append("the idle timeout must not exceed the absolute timeout") }
        if flowLifetime < .seconds(1) { problems.append("the flow lifetime must be at least 1 second") }
        if keyPrefix.utf8.count > 64 { problems.append("the key prefix must be at most 64 bytes") }
        if maxRecordBytes < 1024 { problems.append("the record size limit must be at least 1024 bytes") }
        return problems
    }
}
