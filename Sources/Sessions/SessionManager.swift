import Core
import Crypto

/// Creates, loads, updates and ends sessions on top of a `SessionStore`,
/// and owns the session cookie (the manager layer of the oauth2-proxy
/// design; see Docs/sessions.md).
///
/// The cookie carries 32 random bytes in base64url. The store key and the
/// sealing key are derived from them one way (HKDF-SHA256 with separate
/// labels), so neither the store's keys nor its records let anyone act as
/// a user, and every record is AES-256-GCM sealed and bound to its key,
/// version and absolute expiry.
///
/// Loading a session is one store round trip that also renews the idle
/// timeout when due (no write per request).
public struct SessionManager: Sendable {
    /// The byte store, with the record cache in front of the request
    /// path's reads; callers outside this module go through the manager's
    /// operations (the refresh keeps its locks in a store of its own).
    let store: CachingSessionStore
    /// The settings.
    public let configuration: SessionConfiguration
    let clock: any UnixClock
    let memo: SessionMemo
    /// Seals the session cards (the user's session list).
    let directory: SessionDirectory
    /// Seals the revocation notes of pending app hand-off codes.
    let appLoginNotes: AppLoginRevocations
    /// `configuration.touchInterval` in milliseconds, worked out once (a
    /// `Duration` division on every lookup showed in profiles).
    private let touchIntervalMilliseconds: UInt64

    /// A manager over `store`, with `cache` (if any) in front of the
    /// request path's reads, reading time from `clock`.
    public init(store: any SessionStore, cache: (any SessionRecordCache)? = nil,
                configuration: SessionConfiguration = SessionConfiguration(), clock: any UnixClock = SystemUnixClock())
    {
        self.store = CachingSessionStore(store, cache: cache)
        self.configuration = configuration
        self.clock = clock
        memo = SessionMemo(capacity: configuration.rememberedSessions, maxUnused: configuration.idleTimeout)
        directory = SessionDirectory(secret: configuration.directorySecret)
        appLoginNotes = AppLoginRevocations(secret: configuration.directorySecret)
        touchIntervalMilliseconds = UInt64(configuration.touchInterval.wholeMilliseconds)
    }

    /// Now, in Unix milliseconds, on the clock session times are kept on.
    public var now: UInt64 { clock.unixMilliseconds() }

    /// The session the request's `Cookie` header points to, or why there
    /// is none. One store round trip, which renews the idle timeout when
    /// this process has not for a touch interval; between renewals the
    /// store may answer from memory it keeps current (`loadRecent`). A
    /// session served lately is neither derived nor decrypted again (see
    /// `SessionMemo`).
    public func lookup(cookieHeader: String?) async throws(SessionError) -> SessionLookup<Session> {
        try await lookup(cookieValue: cookieHeader.flatMap { header in header.withContiguousUTF8 { cookieValue(inHeader: $0) } })
    }

    /// The session cookie's value in a `Cookie` header's bytes, if it has
    /// one, as a `String` of its own, cut from the bytes (no `String` of the
    /// whole header: Docs/performance.md, "Bytes, not strings").
    public func cookieValue(inHeader bytes: UnsafeBufferPointer<UInt8>) -> String? {
        cookieValueRange(inHeader: bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
    }

    /// `lookup(cookieHeader:)` given the session cookie's value, as
    /// `cookieValue(inHeader:)` reads it.
    public func lookup(cookieValue: String?) async throws(SessionError) -> SessionLookup<Session> {
        guard let cookieValue else { return .noCookie }
        // No key: over 48 bytes, never a value we issued (derivation says so).
        let memoKey = SessionMemo.Key(cookieValue)
        let now = clock.unixMilliseconds()
        var entry: SessionMemo.Entry
        let remembered = memoKey.flatMap { memo.entry($0, now: now) }
        if let remembered {
            entry = remembered
        } else {
            let value = Substring(cookieValue).utf8
            guard let handle = try derive({ () throws(CryptoError) in try RecordScheme.session.handle(cookieValue: value) })
            else { return .malformedCookie }
            entry = SessionMemo.Entry(handle: handle)
        }
        let touch = now &- entry.touchedAt >= touchIntervalMilliseconds
        let (key, idle) = (entry.handle.storeKey, configuration.idleTimeout)
        guard let record = try await call({ () async throws(SessionStoreError) in
            touch ? try await store.load(key, touch: idle) : try await store.loadRecent(key)
        }) else {
            if let memoKey { memo.forget(memoKey) }
            return .notFound
        }
        if touch { entry.touchedAt = now }
        let found = open(record, entry: &entry)
        // The card is renewed with the record, and only then (lastSeenAt),
        // beside the request rather than before its answer.
        if touch, case .found = found { renewCard(storeKey: key, now: now, absoluteExpiry: record.absoluteExpiry) }
        // Written back only when it changed: `memo.entry` marked it used.
        if let memoKey, remembered == nil || touch || entry.opened !== remembered?.opened {
            memo.remember(entry, key: memoKey, now: now)
        }
        return found
    }

    /// `lookup(cookieValue:)` when it needs no wait: the cookie was served
    /// lately (its handle is remembered), no idle renewal is due, and the
    /// record cache holds the record (`CachingSessionStore.recentInMemory`).
    /// nil when any of that is missing; `lookup` then goes to the store.
    /// Most proxied requests of a busy session end here, with no async call
    /// and, from the `Cookie` field's bytes, no `String` made.
    public func lookupAtOnce(cookieValue bytes: UnsafeBufferPointer<UInt8>) -> SessionLookup<Session>? {
        let now = clock.unixMilliseconds()
        guard let memoKey = SessionMemo.Key(bytes), let remembered = memo.entry(memoKey, now: now),
              now &- remembered.touchedAt < touchIntervalMilliseconds,
              let record = store.recentInMemory(remembered.handle.storeKey) else { return nil }
        var entry = remembered
        let found = open(record, entry: &entry)
        if entry.opened !== remembered.opened { memo.remember(entry, key: memoKey, now: now) }
        return found
    }

    /// `lookupAtOnce` given the value as a `String`.
    public func lookupAtOnce(cookieValue: String) -> SessionLookup<Session>? {
        cookieValue.withContiguousUTF8 { lookupAtOnce(cookieValue: $0) }
    }

    /// The range of the session cookie's value in a `Cookie` header's
    /// bytes; nil when the header has none, or several (which name no
    /// session: see `CookieHeader.value(named:in:)`).
    public func cookieValueRange(inHeader bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        configuration.cookieName.withContiguousUTF8 { CookieHeader.valueRange(named: $0, in: bytes) }
    }

    /// Whether a `Cookie` header names the session cookie more than once.
    public func namesSeveralSessionCookies(_ cookieHeader: String) -> Bool {
        Self.namesSeveral(configuration.cookieName, in: cookieHeader)
    }

    /// Whether a `Cookie` header names the flow cookie more than once.
    public func namesSeveralFlowCookies(_ cookieHeader: String) -> Bool {
        Self.namesSeveral(configuration.flowCookieName, in: cookieHeader)
    }

    private static func namesSeveral(_ cookieName: String, in cookieHeader: String) -> Bool {
        cookieName.withContiguousUTF8 { name in cookieHeader.withContiguousUTF8 { CookieHeader.namesSeveral(name, in: $0) } }
    }

    /// The live session for the `Cookie` header, or nil for every kind of
    /// "no session" (use `lookup` to tell tampering apart and log it).
    public func load(cookieHeader: String?) async throws(SessionError) -> Session? {
        try await lookup(cookieHeader: cookieHeader).value
    }

    /// Reads `session`'s record again without renewing it: the current
    /// version and content after another request or instance wrote it
    /// (a refresh waiter reading its successor tokens).
    public func reload(_ session: Session) async throws(SessionError) -> SessionLookup<Session> {
        let key = session.handle.storeKey
        guard let record = try await call({ () async throws(SessionStoreError) in
            try await store.load(key, touch: nil)
        }) else { return .notFound }
        var entry = SessionMemo.Entry(handle: session.handle)
        return open(record, entry: &entry)
    }

    /// Starts a session for `data` under a fresh random id, always: the
    /// browser's earlier session named in `cookieHeader`, if any, is ended
    /// first (fixation defence); a header naming several is not trusted to
    /// name the browser's own, and ends none. Adds the session to its
    /// user's index, its card (with `device` and `address`, the facts
    /// `sessions(of:)` lists) and, with a `sid`, to the sid index.
    ///
    /// - Returns: the session and the `Set-Cookie` value that carries it.
    public func create(_ data: SessionData, replacing cookieHeader: String?, device: String = "", address: String = "")
        async throws(SessionError) -> (session: Session, setCookie: Secret)
    {
        let created = try await createEnding(data, replacing: cookieHeader, device: device, address: address)
        return (created.session, created.setCookie)
    }

    /// `create`, also returning the earlier session it ended (as its
    /// record held it when taken), whose tokens the caller revokes.
    /// `authenticatedAt`: when the user signed in, for a sign-in that moved
    /// here from another session (the absolute timeout counts from it);
    /// nil: now.
    public func createEnding(_ data: SessionData, replacing cookieHeader: String?, device: String = "", address: String = "",
                             authenticatedAt: UInt64? = nil)
        async throws(SessionError) -> (session: Session, setCookie: Secret, ended: Session?)
    {
        let now = clock.unixMilliseconds()
        let signedInAt = min(authenticatedAt ?? now, now)
        var absolute = signedInAt &+ UInt64(configuration.absoluteTimeout.wholeMilliseconds)
        if let refreshExpiry = data.tokens.refreshTokenExpiresAt { absolute = min(absolute, refreshExpiry) }
        guard absolute > now else { throw .invalidData(reason: "the refresh token has already expired") }
        let (cookieValue, handle) = try derive { () throws(CryptoError) in try RecordScheme.session.newHandle() }
        let content = SessionRecord(data: data, authenticatedAt: signedInAt, absoluteExpiresAt: absolute)
        let record = try sealed(content.encoded(), scheme: .session, handle: handle, version: 1, absoluteExpiry: absolute)
        let card = try newCard(data, handle: handle, now: now, absoluteExpiry: absolute, device: device, address: address)

        var ended: Session?
        if let header = cookieHeader, let old = CookieHeader.value(named: configuration.cookieName, in: header) {
            ended = try await endEarlier(cookieValue: old)
        }
        let idle = configuration.idleTimeout
        let index = Self.userIndex(subject: data.subject)
        let lifetime = Duration.milliseconds(Int64(absolute - now))
        try await call { () async throws(SessionStoreError) in
            try await store.save(handle.storeKey, record: record, ttl: idle)
            try await store.addToIndex(index, member: handle.storeKey, ttl: lifetime)
            try await store.save(card.key, record: card.record, ttl: idle)
            if let sid = data.sid {
                try await store.addToIndex(Self.sidIndex(sid: sid), member: handle.storeKey, ttl: lifetime)
            }
        }
        let session = Session(data: data, authenticatedAt: signedInAt, absoluteExpiresAt: absolute, version: 1, handle: handle)
        let maxAge: Int64? = configuration.cookieLifetime == .untilAbsoluteExpiry ? Int64(absolute - now) / 1000 : nil
        let setCookie = CookieHeader.setCookie(name: configuration.cookieName, value: cookieValue, maxAge: maxAge)
        return (session, Secret(setCookie), ended)
    }

    /// Replaces the session's content with `data` if nobody wrote it since
    /// `session` was read (compare-and-set on its version). On success,
    /// `session` carries the new content and version. The absolute expiry
    /// only ever shrinks (to a new refresh token's expiry).
    ///
    /// - Returns: false when another request or instance wrote first, or the
    ///   session has ended; reload then.
    public func update(_ session: inout Session, data: SessionData) async throws(SessionError) -> Bool {
        guard data.subject == session.data.subject else {
            throw .invalidData(reason: "an update cannot change the subject")
        }
        var absolute = session.absoluteExpiresAt
        if let refreshExpiry = data.tokens.refreshTokenExpiresAt { absolute = min(absolute, refreshExpiry) }
        let version = session.version &+ 1
        let content = SessionRecord(data: data, authenticatedAt: session.authenticatedAt, absoluteExpiresAt: absolute)
        let record = try sealed(content.encoded(), scheme: .session, handle: session.handle, version: version,
                                absoluteExpiry: absolute)
        let (key, expected, idle) = (session.handle.storeKey, session.version, configuration.idleTimeout)
        let written = try await call { () async throws(SessionStoreError) in
            try await store.compareAndSet(key, expectedVersion: expected, record: record, ttl: idle)
        }
        guard written else { return false }
        session.data = data
        session.version = version
        session.absoluteExpiresAt = absolute
        return absolute > clock.unixMilliseconds()
    }

    /// Ends `session`: deletes its record, its card and its index entries. Revokes
    /// nothing (this layer knows no identity server): the gateway ends
    /// sessions with `take` and revokes the tokens the record held.
    ///
    /// - Returns: the `Set-Cookie` value that expires the cookie.
    public func end(_ session: Session) async throws(SessionError) -> String {
        let key = session.handle.storeKey
        memo.forget(storeKey: key)
        try await call { () async throws(SessionStoreError) in
            try await store.delete([key, SessionDirectory.cardKey(storeKey: key)])
        }
        try await removeFromIndexes(storeKey: key, subject: session.data.subject, sid: session.data.sid)
        return expiringCookie()
    }

    /// Ends `session` like `end`, removing its record in one atomic step,
    /// and returns the content that record held at that moment: the tokens
    /// to revoke at logout, even when another request or instance wrote a
    /// successor after `session` was read (a refresh that completes after
    /// this finds no record, and its write fails). Nil when the record was
    /// already gone or does not open.
    public func take(_ session: Session) async throws(SessionError) -> Session? {
        let key = session.handle.storeKey
        memo.forget(storeKey: key)
        let record = try await call { () async throws(SessionStoreError) in
            let record = try await store.take(key)
            try await store.delete([SessionDirectory.cardKey(storeKey: key)])
            return record
        }
        try await removeFromIndexes(storeKey: key, subject: session.data.subject, sid: session.data.sid)
        guard let record, case .found(let latest) = open(record, handle: session.handle) else { return nil }
        return latest
    }

    /// The `Set-Cookie` value that removes the session cookie
    /// (`Max-Age=0`), for logout and for a cookie that names no session.
    public func expiringCookie() -> String {
        CookieHeader.setCookie(name: configuration.cookieName, value: "", maxAge: 0)
    }
}
