import Core
import Crypto

// Cross-device sign-ins (RFC 8628 run by the gateway; Docs/handoff.md).
// Each has two sealed records, both living until the device code expires
// plus `crossDeviceGrace` (so a late poll hears "expired", not "unknown"):
// the secret one (the device code and the pacing), under a handle derived
// from the starting browser's `__Host-bff-xd` cookie AND the request id,
// so only a request carrying both finds it (a browser may hold several);
// and the public context, under a handle derived from the request id
// alone (256 random bits, like a cookie's). Polls are paced in the secret
// record: the one request whose compare-and-set moves "next allowed poll"
// forward asks Modgud.
extension SessionManager {
    /// The cookie that binds cross-device sign-ins to the browser that
    /// started them (`HttpOnly; Secure; SameSite=Strict; Path=/`).
    public static let crossDeviceCookieName = "__Host-bff-xd"
    /// How long both records outlive the device code.
    public static let crossDeviceGrace: Duration = .seconds(60)
    /// What `slow_down` adds to the interval (RFC 8628 §3.5).
    public static let crossDeviceSlowDownSeconds = 5
    /// Added to the interval between two calls to Modgud, so that the
    /// time a call takes to reach Modgud never makes one arrive early (an
    /// early poll is answered `slow_down`, which raises the interval for good).
    public static let crossDevicePollMargin: Duration = .milliseconds(250)

    /// A fresh request id: 256 random bits, base64url (43 characters).
    public static func newCrossDeviceRequestID() throws(SessionError) -> String {
        do throws(CryptoError) {
            return Base64URL.encode(try SecureRandom.bytes(count: RecordScheme.cookieByteCount))
        } catch {
            throw .crypto(error)
        }
    }

    /// Stores a started sign-in: `request` for this browser under
    /// `requestID`, reusing the cross-device cookie the `cookieHeader`
    /// names when it names exactly one well-formed one, else under a fresh
    /// cookie; and `context` under `requestID` alone.
    ///
    /// - Returns: the `Set-Cookie` value of the cross-device cookie, its
    ///   `Max-Age` the device code's lifetime plus `crossDeviceGrace`.
    public func beginCrossDevice(_ request: CrossDeviceRequest, context: CrossDeviceContext, requestID: String,
                                 cookieHeader: String?) async throws(SessionError) -> Secret {
        let now = clock.unixMilliseconds()
        guard request.expiresAt > now else { throw .invalidData(reason: "the device code has already expired") }
        guard let contextHandle = try contextHandle(requestID) else {
            throw .invalidData(reason: "the request id is not 32 bytes of base64url")
        }
        let (cookieValue, handle) = try crossDeviceHandle(cookieHeader: cookieHeader, requestID: requestID)
        let retained = request.expiresAt &+ UInt64(Self.crossDeviceGrace.wholeMilliseconds)
        let secret = try sealed(request.encoded(), scheme: .crossDevice, handle: handle, version: 1, absoluteExpiry: retained)
        let visible = try sealed(context.encoded(), scheme: .crossDeviceContext, handle: contextHandle, version: 1,
                                 absoluteExpiry: retained)
        let ttl = Duration.milliseconds(Int64(retained - now))
        try await call { () async throws(SessionStoreError) in
            try await store.save(handle.storeKey, record: secret, ttl: ttl)
            try await store.save(contextHandle.storeKey, record: visible, ttl: ttl)
        }
        // The cookie lasts as long as the records, so that a late poll
        // still carries it and hears "expired".
        let maxAge = Int64((retained - now + 999) / 1000)
        return Secret(CookieHeader.setCookie(name: Self.crossDeviceCookieName, value: cookieValue, maxAge: maxAge))
    }

    /// The public context of `requestID`: `.expired` past the device
    /// code's expiry (within the grace), `.malformedCookie` for an id that
    /// is not 32 bytes of base64url.
    public func crossDeviceContext(requestID: String) async throws(SessionError) -> SessionLookup<CrossDeviceContext> {
        guard let handle = try contextHandle(requestID) else { return .malformedCookie }
        guard let stored = try await call({ () async throws(SessionStoreError) in try await store.load(handle.storeKey, touch: nil) })
        else { return .notFound }
        guard let plaintext = RecordScheme.crossDeviceContext.open(stored, handle: handle),
              let context = CrossDeviceContext(decoding: plaintext) else { return .tampered }
        guard context.expiresAt > clock.unixMilliseconds() else { return .expired }
        return .found(context)
    }

    /// The secret record this browser's cross-device cookie and
    /// `requestID` name together, read without changing it; another
    /// browser's cookie, or this one with another id, finds nothing. A
    /// record past the code's expiry (within the grace) is found too:
    /// ask `CrossDeviceRecord.isExpired(at:)`.
    public func crossDeviceRecord(requestID: String, cookieHeader: String?) async throws(SessionError)
        -> SessionLookup<CrossDeviceRecord> {
        guard let header = cookieHeader, let value = CookieHeader.value(named: Self.crossDeviceCookieName, in: header)
        else { return .noCookie }
        guard let contextHandle = try contextHandle(requestID),
              let handle = try derive({ () throws(CryptoError) in
                  try RecordScheme.crossDevice.handle(cookieValue: value, key: requestID)
              })
        else { return .malformedCookie }
        return try await load(handle: handle, contextHandle: contextHandle)
    }

    /// Claims the next call to Modgud for `record`: "next allowed poll"
    /// moves to now plus the interval (and `crossDevicePollMargin`), written only while the record is
    /// still at the version read, so of every request and instance polling
    /// at once one store operation lets exactly one through. False when it
    /// is not yet time, the code has expired, or another poll got there
    /// first; nothing is written then.
    public func claimCrossDevicePoll(_ record: inout CrossDeviceRecord) async throws(SessionError) -> Bool {
        let now = clock.unixMilliseconds()
        guard now >= record.request.nextPollAt, !record.isExpired(at: now) else { return false }
        var next = record.request
        next.nextPollAt = now &+ UInt64(next.intervalSeconds) * 1000 &+ UInt64(Self.crossDevicePollMargin.wholeMilliseconds)
        return try await write(next, over: &record)
    }

    /// Raises the interval, and the next allowed poll with it, by
    /// `crossDeviceSlowDownSeconds` after Modgud's `slow_down`. A concurrent
    /// write is read again and raised in turn: each `slow_down` Modgud sent
    /// raises it once, as Modgud raised its own. False when the record is gone.
    @discardableResult
    public func slowCrossDevicePolls(_ record: inout CrossDeviceRecord) async throws(SessionError) -> Bool {
        for _ in 0..<4 {
            var next = record.request
            next.intervalSeconds += Self.crossDeviceSlowDownSeconds
            next.nextPollAt = next.nextPollAt &+ UInt64(Self.crossDeviceSlowDownSeconds) * 1000
            if try await write(next, over: &record) { return true }
            guard case .found(let fresh) = try await load(handle: record.handle, contextHandle: record.contextHandle)
            else { return false }
            record = fresh
        }
        return false
    }

    /// Ends a cross-device sign-in: its secret and its context record go.
    public func endCrossDevice(_ record: CrossDeviceRecord) async throws(SessionError) {
        let keys = [record.handle.storeKey, record.contextHandle.storeKey]
        try await call { () async throws(SessionStoreError) in try await store.delete(keys) }
    }

    /// The `Set-Cookie` value that removes the cross-device cookie (`Max-Age=0`).
    public func expiringCrossDeviceCookie() -> String {
        CookieHeader.setCookie(name: Self.crossDeviceCookieName, value: "", maxAge: 0)
    }

    // MARK: Internals

    private func contextHandle(_ requestID: String) throws(SessionError) -> RecordHandle? {
        try derive { () throws(CryptoError) in try RecordScheme.crossDeviceContext.handle(cookieValue: Substring(requestID).utf8) }
    }

    /// The browser's own cookie value when it sent exactly one well-formed
    /// one, else a fresh one, and the record's handle under `requestID`.
    private func crossDeviceHandle(cookieHeader: String?, requestID: String) throws(SessionError) -> (String, RecordHandle) {
        if let header = cookieHeader, let value = CookieHeader.value(named: Self.crossDeviceCookieName, in: header),
           let handle = try derive({ () throws(CryptoError) in
               try RecordScheme.crossDevice.handle(cookieValue: value, key: requestID)
           }) {
            return (String(Substring(value)), handle)
        }
        return try derive { () throws(CryptoError) in try RecordScheme.crossDevice.newHandle(key: requestID) }
    }

    private func load(handle: RecordHandle, contextHandle: RecordHandle) async throws(SessionError) -> SessionLookup<CrossDeviceRecord> {
        guard let stored = try await call({ () async throws(SessionStoreError) in try await store.load(handle.storeKey, touch: nil) })
        else { return .notFound }
        guard let plaintext = RecordScheme.crossDevice.open(stored, handle: handle),
              let request = CrossDeviceRequest(decoding: plaintext) else { return .tampered }
        return .found(CrossDeviceRecord(request: request, version: stored.version, handle: handle, contextHandle: contextHandle,
                                        retainedUntil: stored.absoluteExpiry))
    }

    /// Writes `request` over `record` if nobody wrote it since it was read.
    private func write(_ request: CrossDeviceRequest, over record: inout CrossDeviceRecord) async throws(SessionError) -> Bool {
        let version = record.version &+ 1
        let sealedRecord = try sealed(request.encoded(), scheme: .crossDevice, handle: record.handle, version: version,
                                      absoluteExpiry: record.retainedUntil)
        let now = clock.unixMilliseconds()
        let ttl = Duration.milliseconds(record.retainedUntil > now ? Int64(record.retainedUntil - now) : 0)
        let (key, expected) = (record.handle.storeKey, record.version)
        let written = try await call { () async throws(SessionStoreError) in
            try await store.compareAndSet(key, expectedVersion: expected, record: sealedRecord, ttl: ttl)
        }
        guard written else { return false }
        record.request = request
        record.version = version
        return true
    }
}
