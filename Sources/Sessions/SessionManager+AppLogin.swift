import Core
import Crypto

// The native app hand-off's records (Docs/handoff.md): the app's request,
// the pending code the browser session moves into, and the revocation
// notes beside the codes.
extension SessionManager {
    // MARK: Requests

    /// Stores a request for `app` with the app's S256 `challenge` under a
    /// fresh request id (256 random bits, base64url), living `lifetime`.
    public func beginAppLogin(challenge: String, app: String, lifetime: Duration)
        async throws(SessionError) -> (requestID: Secret, expiresAt: UInt64)
    {
        let expiresAt = clock.unixMilliseconds() &+ UInt64(lifetime.wholeMilliseconds)
        var state = FlowState(grant: AppLoginRequest.grant, values: ["challenge": Secret(challenge), "app": Secret(app)])
        state.expiresAt = expiresAt
        let (id, handle) = try derive { () throws(CryptoError) in try RecordScheme.appRequest.newHandle() }
        let record = try sealed(state.encoded(), scheme: .appRequest, handle: handle, version: 1, absoluteExpiry: expiresAt)
        try await call { () async throws(SessionStoreError) in try await store.save(handle.storeKey, record: record, ttl: lifetime) }
        return (Secret(id), expiresAt)
    }

    /// The live request `id` names, only read (it stays usable); nil when
    /// unknown, used, expired or malformed.
    public func appLoginRequest(id: String) async throws(SessionError) -> AppLoginRequest? {
        guard let handle = try requestHandle(id) else { return nil }
        let record = try await call { () async throws(SessionStoreError) in try await store.load(handle.storeKey, touch: nil) }
        return record.flatMap { request(in: $0, handle: handle) }
    }

    /// Takes (reads and deletes, atomically) the request `id` names: of
    /// two takes, one gets it. Nil when unknown, used, expired or malformed.
    public func takeAppLoginRequest(id: String) async throws(SessionError) -> AppLoginRequest? {
        guard let handle = try requestHandle(id) else { return nil }
        let record = try await call { () async throws(SessionStoreError) in try await store.take(handle.storeKey) }
        return record.flatMap { request(in: $0, handle: handle) }
    }

    private func requestHandle(_ id: String) throws(SessionError) -> RecordHandle? {
        try derive { () throws(CryptoError) in try RecordScheme.appRequest.handle(cookieValue: Substring(id).utf8) }
    }

    private func request(in record: StoredRecord, handle: RecordHandle) -> AppLoginRequest? {
        guard case .found(let state) = openFlow(record, handle: handle, scheme: .appRequest),
              state.grant == AppLoginRequest.grant, let challenge = state.values["challenge"], let app = state.values["app"]
        else { return nil }
        return AppLoginRequest(challenge: challenge.revealed, app: app.revealed, expiresAt: state.expiresAt)
    }

    // MARK: Codes

    /// Moves `session`'s content (already taken from the store: it has
    /// ended) into a pending code bound to `challenge`, living `lifetime`,
    /// and writes beside it a revocation note, due `grace` after the code
    /// expires, that the sweep (`dueAppLoginRevocations`) acts on when the
    /// code is never redeemed. The note is written first: a code is never
    /// stored without one.
    ///
    /// - Returns: the code (256 random bits, base64url); the store keeps
    ///   only its SHA-256.
    public func issueAppLoginCode(moving session: Session, challenge: String, lifetime: Duration, grace: Duration)
        async throws(SessionError) -> Secret
    {
        let now = clock.unixMilliseconds()
        let expiresAt = now &+ UInt64(lifetime.wholeMilliseconds)
        let handover = AppLoginHandover(challenge: challenge, data: session.data, authenticatedAt: session.authenticatedAt,
                                        expiresAt: expiresAt)
        let (code, handle) = try derive { () throws(CryptoError) in try RecordScheme.appCode.newDigestHandle() }
        let record = try sealed(handover.encoded(), scheme: .appCode, handle: handle, version: 1, absoluteExpiry: expiresAt)
        let tokens = session.data.tokens
        let note = AppLoginRevocations.Note(token: tokens.refreshToken ?? tokens.accessToken,
                                            hint: tokens.refreshToken == nil ? "access_token" : "refresh_token",
                                            due: expiresAt &+ UInt64(grace.wholeMilliseconds))
        // Kept well past its due time, so that a sweep running late still finds it.
        let noteLifetime = lifetime + grace + .seconds(600)
        let noteKey = AppLoginRevocations.noteKey(codeStoreKey: handle.storeKey)
        let sealedNote = try derive { () throws(CryptoError) in
            try appLoginNotes.seal(note, noteKey: noteKey, absoluteExpiry: now &+ UInt64(noteLifetime.wholeMilliseconds))
        }
        try await call { () async throws(SessionStoreError) in
            try await store.save(noteKey, record: sealedNote, ttl: noteLifetime)
            try await store.addToIndex(AppLoginRevocations.index, member: noteKey, ttl: noteLifetime)
            try await store.save(handle.storeKey, record: record, ttl: lifetime)
        }
        return Secret(code)
    }

    /// Redeems `code`: takes its record (one store operation: of any
    /// number of concurrent attempts, on any instance, one gets it; every
    /// attempt deletes it), then takes its revocation note. The caller
    /// checks the verifier against `challenge` and, when it fails, revokes
    /// the moved tokens itself (the note is gone).
    ///
    /// - Returns: the moved sign-in; nil when the code is malformed,
    ///   unknown, used, expired, or its tokens were already revoked by the sweep.
    public func redeemAppLoginCode(_ code: String) async throws(SessionError) -> AppLoginHandover? {
        guard let handle = try derive({ () throws(CryptoError) in try RecordScheme.appCode.digestHandle(code: Substring(code).utf8) })
        else { return nil }
        guard let record = try await call({ () async throws(SessionStoreError) in try await store.take(handle.storeKey) }),
              let plaintext = RecordScheme.appCode.open(record, handle: handle),
              let handover = AppLoginHandover(decoding: plaintext), handover.expiresAt == record.absoluteExpiry,
              handover.expiresAt > clock.unixMilliseconds()
        else { return nil }
        let noteKey = AppLoginRevocations.noteKey(codeStoreKey: handle.storeKey)
        let note = try await call { () async throws(SessionStoreError) in
            let note = try await store.take(noteKey)
            try await store.removeFromIndex(AppLoginRevocations.index, member: noteKey)
            return note
        }
        // No note: the sweep took it and revoked the tokens.
        return note == nil ? nil : handover
    }

    /// The sweep: takes every revocation note past its due time (an
    /// unredeemed code's; `take`, so of several instances sweeping at once
    /// one gets each) and returns their tokens, for the caller to revoke.
    public func dueAppLoginRevocations() async throws(SessionError) -> [(token: Secret, hint: String)] {
        let now = clock.unixMilliseconds()
        let members = try await call { () async throws(SessionStoreError) in
            try await store.indexMembers(AppLoginRevocations.index)
        }
        var due: [(token: Secret, hint: String)] = []
        for key in members {
            guard let record = try await call({ () async throws(SessionStoreError) in try await store.load(key, touch: nil) }) else {
                try await call { () async throws(SessionStoreError) in
                    try await store.removeFromIndex(AppLoginRevocations.index, member: key)
                }
                continue
            }
            guard let note = appLoginNotes.open(record, noteKey: key), note.due <= now else { continue }
            let taken = try await call { () async throws(SessionStoreError) in
                let taken = try await store.take(key)
                try await store.removeFromIndex(AppLoginRevocations.index, member: key)
                return taken
            }
            if let taken, appLoginNotes.open(taken, noteKey: key) != nil { due.append((note.token, note.hint)) }
        }
        return due
    }
}
