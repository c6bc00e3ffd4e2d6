import Observability
import Redis

/// Logs when the gateway loses Redis and when it has it back: once a
/// second it compares `isReady` with what it saw last, and logs a change
/// with the reason (`host name lookup failed`, `connect failed`,
/// `TLS failed: certificate verify failed …`, `the server is not the
/// master`; never a password). A start without Redis logs at the first look.
final class RedisWatch: Sendable {
    private let task: Task<Void, Never>

    init(redis: RedisClient, logger: Logger, interval: Duration = .seconds(1)) {
        task = Task {
            var wasReady = true
            try? await Task.sleep(for: interval)
            while !Task.isCancelled {
                let ready = redis.isReady
                if ready != wasReady {
                    if ready {
                        logger.info("redis.ready")
                    } else {
                        logger.warning("redis.unavailable", ["reason": .string(redis.lastFailureReason ?? "not connected")])
                    }
                    wasReady = ready
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    func stop() {
        task.cancel()
    }
}
