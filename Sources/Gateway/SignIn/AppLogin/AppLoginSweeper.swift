import Core
import Modgud
import Observability
import Sessions
import Synchronization

/// Revokes at Modgud the refresh token of every hand-off code that expired
/// unredeemed: every instance sweeps every `interval`, and the store's
/// `take` gives each due note to one of them (Docs/handoff.md).
final class AppLoginSweeper: Sendable {
    private let sessions: SessionManager
    private let modgud: ModgudClient
    private let interval: Duration
    private let handoffs: Counter
    private let logger: Logger
    private let audit: AuditTrail
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(sessions: SessionManager, modgud: ModgudClient, settings: AppLoginSettings, logger: Logger, audit: AuditTrail) {
        self.sessions = sessions
        self.modgud = modgud
        interval = settings.times.sweepInterval
        handoffs = settings.handoffs
        self.logger = logger
        self.audit = audit
    }

    /// Starts sweeping, once.
    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in
                while !Task.isCancelled {
                    guard (try? await Task.sleep(for: interval)) != nil else { return }
                    await sweep()
                }
            }
        }
    }

    /// Stops sweeping; a due note not yet swept is left to another instance
    /// or the next start.
    func stop() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// One sweep: takes the due notes and revokes their tokens.
    func sweep() async {
        let due: [(token: Secret, hint: String)]
        do {
            due = try await sessions.dueAppLoginRevocations()
        } catch {
            logger.warning("app_login.sweep_failed", ["reason": .string(error.description)])
            return
        }
        for (token, hint) in due {
            let revoked = (try? await modgud.revoke(token, hint: hint))?.isSuccess ?? false
            let outcome = revoked ? "revoked" : "revoke_failed"
            handoffs.increment(["expiry", outcome])
            logger.info("app_login.expiry", ["outcome": .string(outcome)])
            audit.recordBackground("audit.handoff.expiry", [("outcome", .string(outcome))])
        }
    }
}
