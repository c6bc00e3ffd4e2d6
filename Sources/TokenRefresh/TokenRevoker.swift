import Core
import Modgud
import Observability
import Sessions
import Synchronization

/// Revokes at Modgud (`/connect/revoke`, RFC 7009) the tokens of a session
/// that ends, whichever way it ends (Docs/sessions.md, "Ending a session"):
/// the refresh tokens first, each revocation asking Modgud to end the
/// grant the token belongs to (RFC 7009, 2.1), then the access tokens.
/// A token family left live at Modgud after its session ended here is a
/// credential nobody can sign out of.
public struct TokenRevoker: Sendable {
    let modgud: ModgudClient
    private let failures: Counter
    /// The background revocations still running, for `drain`.
    private let running = RunningTasks()

    init(modgud: ModgudClient, metrics: MetricsRegistry) {
        self.modgud = modgud
        failures = metrics.counter("bff_revocations_failed_total",
                                   help: "Token revocations at Modgud that failed, by how the session ended.",
                                   labels: ["reason"])
    }

    /// Every token in `sets`, once each: the refresh tokens first, then
    /// each set's access token and its audiences' tokens.
    static func revocations(_ sets: [SessionTokens]) -> [(token: Secret, hint: String)] {
        var list: [(token: Secret, hint: String)] = sets.compactMap { $0.refreshToken }.map { ($0, "refresh_token") }
        for tokens in sets {
            list.append((tokens.accessToken, "access_token"))
            for resource in tokens.resources.keys.sorted() {
                list.append((tokens.resources[resource]!.accessToken, "access_token"))
            }
        }
        var seen = Set<String>()
        return list.filter { seen.insert($0.token.revealed).inserted }
    }

    /// Revokes every token of `sets` now, one call each; returns how many
    /// calls failed and how many were made. Failures are counted under
    /// `reason`.
    public func revoke(_ sets: [SessionTokens], reason: String) async -> (failed: Int, of: Int) {
        let list = Self.revocations(sets)
        var failed = 0
        for (token, hint) in list {
            let reply = try? await modgud.revoke(token, hint: hint)
            if reply?.isSuccess != true { failed += 1 }
        }
        if failed > 0 { failures.increment([reason], by: Double(failed)) }
        return (failed, list.count)
    }

    /// `revoke` in a task of its own: the answer that ended the session
    /// never waits for Modgud. A failure is logged (counts only) and counted.
    public func revokeInBackground(_ sets: [SessionTokens], reason: String, logger: Logger) {
        guard !sets.isEmpty else { return }
        running.start {
            let (failed, count) = await revoke(sets, reason: reason)
            if failed > 0 {
                logger.warning("session.revocation_failed", ["reason": .string(reason), "failed": .int(failed), "of": .int(count)])
            }
        }
    }

    /// Waits for the background revocations still running, at most
    /// `limit` (at shutdown, before the client to Modgud closes); returns
    /// how many were still running then.
    public func drain(within limit: Duration) async -> Int {
        await running.drain(within: limit)
    }
}

/// How many tasks started here have not finished yet.
private final class RunningTasks: Sendable {
    private let count = Mutex(0)

    func start(_ work: @escaping @Sendable () async -> Void) {
        count.withLock { $0 += 1 }
        Task.detached { [self] in
            await work()
            count.withLock { $0 -= 1 }
        }
    }

    func drain(within limit: Duration) async -> Int {
        let deadline = ContinuousClock.now + limit
        while count.withLock({ $0 }) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return count.withLock { $0 }
    }
}
