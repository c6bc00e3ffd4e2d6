import Core
import Crypto

// The sessions of a user: cards, the user's session list, ending one of
// them by its handle, and ending all of a user's or of a `sid`'s sessions
// (Docs/sessions.md, "Session cards").
extension SessionManager {
    /// The sessions of `session`'s user, each as its card shows it, the
    /// asking one marked `current`; the current one first, then the most
    /// recently seen. Sessions whose card does not open (sealed under
    /// another directory key) or has ended are left out.
    public func sessions(of session: Session) async throws(SessionError) -> [SessionCard] {
        let current = session.handle.storeKey
        var cards: [SessionCard] = []
        for content in try await openCards(subject: session.data.subject) {
            cards.append(content.card(currentStoreKey: current))
        }
        return cards.sorted { a, b in
            a.current != b.current ? a.current : (a.lastSeenAt, a.handle) > (b.lastSeenAt, b.handle)
        }
    }

    /// Ends the session of `session`'s user whose card has `handle` (which
    /// may be `session` itself: compare `lockName`), and returns it as its
    /// record held it when taken, so that the caller revokes its tokens.
    ///
    /// - Returns: nil for a handle none of the user's cards has (unknown,
    ///   ended, or another user's: the same answer), or a session whose
    ///   record had already gone.
    public func end(handle: String, of session: Session) async throws(SessionError) -> Session? {
        guard !handle.isEmpty else { return nil }
        let subject = session.data.subject
        for content in try await openCards(subject: subject) where content.handle == handle {
            let ended = try await endCarded(storeKey: content.storeKey, card: content)
            try await removeFromIndexes(storeKey: content.storeKey, subject: subject, sid: content.sid)
            guard let ended, ended.data.subject == subject else { return nil }
            return ended
        }
        return nil
    }

    /// Ends every session of `subject` (log out everywhere, back-channel
    /// logout by `sub`) through the user index: records, cards and index
    /// entries.
    ///
    /// - Returns: the sessions whose records could be opened (their cards
    ///   opened and the record was still there), as taken, for revocation.
    @discardableResult
    public func endAll(subject: String) async throws(SessionError) -> [Session] {
        let index = Self.userIndex(subject: subject)
        let members = try await call { () async throws(SessionStoreError) in try await store.indexMembers(index) }
        var ended: [Session] = []
        for member in members {
            let card = try await card(storeKey: member)
            if let session = try await endCarded(storeKey: member, card: card) { ended.append(session) }
            try await removeFromIndexes(storeKey: member, subject: subject, sid: card?.sid)
        }
        return ended
    }

    /// Ends every session signed in under the identity server's session
    /// `sid` (back-channel logout by `sid`) through the sid index: records,
    /// cards and index entries.
    ///
    /// - Returns: the sessions whose records could be opened, as taken.
    @discardableResult
    public func endAll(sid: String) async throws(SessionError) -> [Session] {
        let index = Self.sidIndex(sid: sid)
        let members = try await call { () async throws(SessionStoreError) in try await store.indexMembers(index) }
        var ended: [Session] = []
        for member in members {
            let session = try await endCarded(storeKey: member, card: try await card(storeKey: member))
            if let session { ended.append(session) }
            try await removeFromIndexes(storeKey: member, subject: session?.data.subject, sid: sid)
        }
        return ended
    }

    // MARK: - Cards

    /// A card for a new session: a fresh random handle and the facts.
    func newCard(_ data: SessionData, handle: RecordHandle, now: UInt64, absoluteExpiry: UInt64, device: String,
                 address: String) throws(SessionError) -> (key: String, record: StoredRecord)
    {
        let publicHandle = Base64URL.encode(try derive { () throws(CryptoError) in try SecureRandom.bytes(count: 16) })
        let content = CardContent(handle: publicHandle, storeKey: handle.storeKey, sealKey: handle.sealKey, createdAt: now,
                                  lastSeenAt: now, method: data.method, device: device, address: address, sid: data.sid)
        let key = SessionDirectory.cardKey(storeKey: handle.storeKey)
        let record = try derive { () throws(CryptoError) in
            try directory.seal(content, cardKey: key, version: 1, absoluteExpiry: absoluteExpiry)
        }
        return (key, record)
    }

    /// Starts `touchCard` in a task of its own, so that the lookup that
    /// renewed the record does not wait for the card's two round trips.
    /// Nothing waits for it: a renewal still running at shutdown fails
    /// quietly, as any failed renewal does.
    func renewCard(storeKey: String, now: UInt64, absoluteExpiry: UInt64) {
        Task { await touchCard(storeKey: storeKey, now: now, absoluteExpiry: absoluteExpiry) }
    }

    /// Renews the card of the session under `storeKey` with its record's
    /// idle renewal, setting `lastSeenAt`, and cuts its absolute expiry to
    /// the record's (a refresh token that expires sooner shortens the
    /// session). Best effort: a card that is missing, does not open or
    /// changed meanwhile is left as it is, and a store failure does not
    /// fail the lookup that renewed the record.
    func touchCard(storeKey: String, now: UInt64, absoluteExpiry: UInt64) async {
        let key = SessionDirectory.cardKey(storeKey: storeKey)
        guard let record = try? await store.load(key, touch: nil),
              var content = directory.open(record, cardKey: key) else { return }
        content.lastSeenAt = now
        let version = record.version &+ 1
        guard let renewed = try? directory.seal(content, cardKey: key, version: version,
                                                absoluteExpiry: min(record.absoluteExpiry, absoluteExpiry)) else { return }
        _ = try? await store.compareAndSet(key, expectedVersion: record.version, record: renewed,
                                           ttl: configuration.idleTimeout)
    }

    /// The card of the session under `storeKey`, if it is there and opens.
    func card(storeKey: String) async throws(SessionError) -> CardContent? {
        let key = SessionDirectory.cardKey(storeKey: storeKey)
        let record = try await call { () async throws(SessionStoreError) in try await store.load(key, touch: nil) }
        return record.flatMap { directory.open($0, cardKey: key) }
    }

    /// The cards of `subject`'s sessions that are there and open.
    func openCards(subject: String) async throws(SessionError) -> [CardContent] {
        let index = Self.userIndex(subject: subject)
        let members = try await call { () async throws(SessionStoreError) in try await store.indexMembers(index) }
        var cards: [CardContent] = []
        for member in members {
            if let card = try await card(storeKey: member) { cards.append(card) }
        }
        return cards
    }

    /// Takes the record under `storeKey` and deletes its card; returns the
    /// session when `card` gives the key that opens the record.
    func endCarded(storeKey: String, card: CardContent?) async throws(SessionError) -> Session? {
        memo.forget(storeKey: storeKey)
        let record = try await call { () async throws(SessionStoreError) in
            let record = try await store.take(storeKey)
            try await store.delete([SessionDirectory.cardKey(storeKey: storeKey)])
            return record
        }
        guard let record, let card else { return nil }
        let handle = RecordHandle(storeKey: storeKey, sealKey: card.sealKey)
        guard case .found(let session) = open(record, handle: handle) else { return nil }
        return session
    }
}
