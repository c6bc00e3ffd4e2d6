import Core
import Crypto

// Authorization-code flow records: several per browser (one per sign-in
// started, so several tabs may sign in at once), each under a handle
// derived from the flow cookie AND the flow's key (its OAuth `state`), so
// a record is found only by a request carrying both. Sealed, single use,
// living `flowLifetime`. The passkey and second-factor flows
// (`beginFlow`/`takeFlow`) keep their one record per cookie beside these.
extension SessionManager {
    /// Stores `state` for this browser under `key`, reusing the flow
    /// cookie the `cookieHeader` names when it names exactly one
    /// well-formed one, else under a fresh cookie.
    ///
    /// - Returns: the `Set-Cookie` value of the flow cookie (`SameSite=Lax`,
    ///   so that it comes back on the identity server's top-level redirect),
    ///   its `Max-Age` renewed to the flow lifetime (none for browser-session
    ///   cookies).
    public func beginKeyedFlow(_ state: FlowState, key: String, cookieHeader: String?) async throws(SessionError) -> Secret {
        let now = clock.unixMilliseconds()
        let lifetime = configuration.flowLifetime
        var state = state
        state.expiresAt = now &+ UInt64(lifetime.wholeMilliseconds)
        let (cookieValue, handle) = try keyedFlowHandle(cookieHeader: cookieHeader, key: key)
        let record = try sealed(state.encoded(), scheme: .codeFlow, handle: handle, version: 1, absoluteExpiry: state.expiresAt)
        try await call { () async throws(SessionStoreError) in
            try await store.save(handle.storeKey, record: record, ttl: lifetime)
        }
        let maxAge = configuration.cookieLifetime == .untilAbsoluteExpiry ? lifetime.wholeMilliseconds / 1000 : nil
        return Secret(CookieHeader.setCookie(name: configuration.flowCookieName, value: cookieValue, maxAge: maxAge,
                                             sameSite: "Lax"))
    }

    /// The cookie value to use (the browser's own when it sent exactly one
    /// well-formed flow cookie, else a fresh one) and the record's handle.
    private func keyedFlowHandle(cookieHeader: String?, key: String) throws(SessionError) -> (String, RecordHandle) {
        if let header = cookieHeader, !namesSeveralFlowCookies(header),
           let value = CookieHeader.value(named: configuration.flowCookieName, in: header),
           let handle = try derive({ () throws(CryptoError) in try RecordScheme.codeFlow.handle(cookieValue: value, key: key) }) {
            return (String(Substring(value)), handle)
        }
        return try derive { () throws(CryptoError) in try RecordScheme.codeFlow.newHandle(key: key) }
    }

    /// Takes (reads and deletes, atomically) the record this browser's flow
    /// cookie and `key` name together: a second take finds nothing, and so
    /// does a take with another browser's cookie or another key.
    public func takeKeyedFlow(cookieHeader: String?, key: String) async throws(SessionError) -> SessionLookup<FlowState> {
        guard let header = cookieHeader,
              let value = CookieHeader.value(named: configuration.flowCookieName, in: header)
        else { return .noCookie }
        guard let handle = try derive({ () throws(CryptoError) in try RecordScheme.codeFlow.handle(cookieValue: value, key: key) })
        else { return .malformedCookie }
        guard let taken = try await call({ () async throws(SessionStoreError) in try await store.take(handle.storeKey) })
        else { return .notFound }
        return openFlow(taken, handle: handle, scheme: .codeFlow)
    }
}
