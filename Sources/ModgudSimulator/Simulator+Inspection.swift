import Core

/// A message in the dev mailbox.
public struct SentMail: Sendable, Equatable {
    /// `otp`, `registration`, `magic-link` or `account-change`.
    public var kind: String
    /// The recipient.
    public var to: String
    /// The six-digit code (otp, registration).
    public var code: String?
    /// The magic link (magic-link).
    public var link: String?
    /// The user the message is about (not for a pending registration).
    public var userId: String?
    /// The magic link's token.
    public var token: String?
}

/// In-process access to what the `/dev/*` endpoints show, for test suites
/// that run the simulator inside their own process.
extension Simulator {
    /// Messages to `email`, newest first.
    public func mail(to email: String) -> [SentMail] {
        core.state.mailbox.messages(to: email, limit: 1000).map {
            SentMail(kind: $0.kind, to: $0.to, code: $0.code, link: $0.link, userId: $0.userId, token: $0.token)
        }
    }

    /// The counters of `GET /dev/stats`.
    public func stats() -> JSON {
        var body = core.state.stats.json
        body["rateLimits"] = core.state.limiter.json
        return .object(body)
    }

    /// The records of `GET /dev/requests` with a sequence number above
    /// `since`, oldest first.
    public func requests(since: Int = 0) -> [JSON] {
        core.state.recorder.records(since: since, limit: Int.max, path: nil).records.map(\.json)
    }

    /// The sequence number of the newest recorded request (a mark for `requests(since:)`).
    public var lastRequestSeq: Int { core.state.recorder.records(since: Int.max, limit: 0, path: nil).total }

    /// The current TOTP code of a user with a TOTP secret.
    public func totpCode(for email: String) -> String? {
        let state = core.state
        guard let secret = state.identity.withLock({ $0.user(email: email)?.totpSecret }) else { return nil }
        return TOTP.code(secret: secret, time: state.now())
    }

    /// `POST /dev/reset`: forget everything learned at run time.
    public func reset(keepConfig: Bool = false) {
        core.state.reset(keepConfig: keepConfig)
    }

    /// Moves the simulator's clock forward (codes, tokens and buckets age).
    public func advanceClock(by seconds: Double) {
        core.state.clock.advance(by: seconds)
    }

    /// Stops real time from moving the simulator's clock (see `SimClock.freeze`).
    public func freezeClock() {
        core.state.clock.freeze()
    }

    /// Arms a fault for the next `count` calls to `path` (any method when nil).
    public func injectFault(path: String, method: String? = nil, count: Int = 1, _ action: FaultAction) {
        core.state.faults.arm(FaultInjector.Fault(path: path, method: method?.uppercased(), remaining: count, action: action))
    }
}
