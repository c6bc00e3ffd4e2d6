import Core
import Crypto

// Pre-sign-in flow state: one sealed, single-use record per browser, bound
// to it by the flow cookie, derived and sealed like a session under its own
// labels, living `flowLifetime` (default 10 minutes).
extension SessionManager {
    /// Stores `state` for this browser under a fresh flow cookie, replacing
    /// the flow the `cookieHeader` names, if any.
    ///
    /// - Returns: the `Set-Cookie` value of the flow cookie.
    public func beginFlow(_ state: FlowState, replacing cookieHeader: String?) async throws(SessionError) -> Secret {
        let now = clock.unixMilliseconds()
        let lifetime = configuration.flowLifetime
        var state = state
        state.expiresAt = now &+ UInt64(lifetime.wholeMilliseconds)
        let (cookieValue, handle) = try derive { () throws(CryptoError) in try RecordScheme.flow.newHandle() }
        let record = try sealed(state.encoded(), scheme: .flow, handle: handle, version: 1,
                                absoluteExpiry: state.expiresAt)
        let earlier = cookieHeader.flatMap { CookieHeader.value(named: configuration.flowCookieName, in: $0) }
        let earlierHandle = try earlier.flatMap { value throws(SessionError) in
            try derive { () throws(CryptoError) in try RecordScheme.flow.handle(cookieValue: value) }
        }
        try await call { () async throws(SessionStoreError) in
            if let earlierHandle { try await store.delete([earlierHandle.storeKey]) }
            try await store.save(handle.storeKey, record: record, ttl: lifetime)
        }
        let maxAge = configuration.cookieLifetime == .untilAbsoluteExpiry ? lifetime.wholeMilliseconds / 1000 : nil
        return Secret(CookieHeader.setCookie(name: configuration.flowCookieName, value: cookieValue, maxAge: maxAge))
    }

    /// Takes (reads and deletes, atomically) the flow state this browser's
    /// flow cookie names: a second take of the same cookie finds nothing.
    /// State that `accepts` refuses (another flow's, a request that does
    /// not fit it) is only looked at, never taken, and reported `.notFound`:
    /// a stray request changes nothing. The caller also sends
    /// `expiringFlowCookie()`.
    public func takeFlow(cookieHeader: String?, where accepts: (FlowState) -> Bool = { _ in true })
        async throws(SessionError) -> SessionLookup<FlowState> {
        guard let header = cookieHeader,
              let value = CookieHeader.value(named: configuration.flowCookieName, in: header)
        else { return .noCookie }
        guard let handle = try derive({ () throws(CryptoError) in try RecordScheme.flow.handle(cookieValue: value) })
        else { return .malformedCookie }
        // Look first: a flow this request does not fit stays where it is.
        guard let seen = try await call({ () async throws(SessionStoreError) in try await store.load(handle.storeKey, touch: nil) })
        else { return .notFound }
        let lookup = openFlow(seen, handle: handle, scheme: .flow)
        guard case .found(let state) = lookup else { return lookup }
        guard accepts(state) else { return .notFound }
        // Then take: of two requests that fit, one gets it. Flow records
        // are never rewritten under a key, so what is taken is what was seen.
        guard let taken = try await call({ () async throws(SessionStoreError) in try await store.take(handle.storeKey) }),
              taken == seen
        else { return .notFound }
        return .found(state)
    }

    /// Puts back flow state that `takeFlow` took for a call Modgud turned
    /// away without using it (a 429, a 5xx, a call never sent): sealed again
    /// under the same cookie, with its original expiry, so the browser can
    /// try once more. Nothing when the cookie is missing or the state has
    /// expired meanwhile.
    public func restoreFlow(_ state: FlowState, cookieHeader: String?) async throws(SessionError) {
        guard let header = cookieHeader,
              let value = CookieHeader.value(named: configuration.flowCookieName, in: header),
              let handle = try derive({ () throws(CryptoError) in try RecordScheme.flow.handle(cookieValue: value) })
        else { return }
        let now = clock.unixMilliseconds()
        guard state.expiresAt > now else { return }
        let record = try sealed(state.encoded(), scheme: .flow, handle: handle, version: 1, absoluteExpiry: state.expiresAt)
        try await call { () async throws(SessionStoreError) in
            try await store.save(handle.storeKey, record: record, ttl: .milliseconds(Int64(state.expiresAt - now)))
        }
    }

    /// The flow state in `record`, checked: sealed under `scheme` for this
    /// cookie (and key), intact, not expired.
    func openFlow(_ record: StoredRecord, handle: RecordHandle, scheme: RecordScheme) -> SessionLookup<FlowState> {
        guard let plaintext = scheme.open(record, handle: handle),
              let state = FlowState(decoding: plaintext), state.expiresAt == record.absoluteExpiry
        else { return .tampered }
        guard state.expiresAt > clock.unixMilliseconds() else { return .expired }
        return .found(state)
    }

    /// The `Set-Cookie` value that removes the flow cookie (`Max-Age=0`).
    public func expiringFlowCookie() -> String {
        CookieHeader.setCookie(name: configuration.flowCookieName, value: "", maxAge: 0)
    }
}
