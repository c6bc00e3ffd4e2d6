import Core
import HTTP
import Modgud
import Synchronization

/// `GET /bff/app-info`: Modgud's `/api/app-info`, kept for a short while so
/// a burst of page loads costs Modgud one call. Only successful answers are
/// kept; a failure is relayed and retried on the next request.
public final class AppInfoCache: Sendable {
    private struct Entry {
        let reply: ModgudReply
        let fetchedAt: ContinuousClock.Instant
    }

    private let modgud: ModgudClient
    private let lifetime: Duration
    private let entry = Mutex<Entry?>(nil)

    public init(modgud: ModgudClient, lifetime: Duration = .seconds(60)) {
        self.modgud = modgud
        self.lifetime = lifetime
    }

    /// The cached answer when fresh, else a new one from Modgud.
    public func current() async throws(ModgudFailure) -> (reply: ModgudReply, cached: Bool) {
        let now = ContinuousClock.now
        if let cached = entry.withLock({ $0 }), now - cached.fetchedAt < lifetime { return (cached.reply, true) }
        let reply = try await modgud.appInfo()
        if reply.isSuccess, reply.json != nil { entry.withLock { $0 = Entry(reply: reply, fetchedAt: now) } }
        return (reply, false)
    }

    /// The `SignIn` section of the cached answer, if any: which methods the
    /// target App allows.
    public func signInPolicy() -> JSON? {
        entry.withLock { $0 }?.reply.json?.value(forKeyIgnoringCase: "SignIn")
    }
}
