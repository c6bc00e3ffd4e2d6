import Core
import HTTP
import HTTPClient
import Observability
import Synchronization

/// Back-channel logout deliveries: each logout token is POSTed to its
/// client's URI in the background (never inside the request that ended
/// the session) and, after a non-2xx answer or a failed connection, sent
/// again (the same token) after each of the configured delays. Every
/// attempt is recorded for `GET /dev/backchannel`; tokens never are.
final class BackchannelDelivery: Sendable {
    /// One logout token on its way to one client.
    struct Notice: Sendable {
        var clientId: String
        var uri: String
        var token: String
    }

    private struct Running {
        var client: HTTPClient?
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextDelivery = 1
        var attempts: [DeliveryAttempt] = []
    }

    private static let attemptCapacity = 1000
    private let running = Mutex(Running())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Gives the deliveries their HTTP client (once the simulator runs on its loops).
    func attach(_ client: HTTPClient) {
        running.withLock { $0.client = client }
    }

    /// Starts delivering `notices`; `delays` (seconds) separate the attempts.
    /// `now` stamps each attempt (the simulator's clock).
    func send(_ notices: [Notice], delays: [Double], now: @escaping @Sendable () -> Double) {
        for notice in notices {
            running.withLock { running in
                let id = running.nextDelivery
                running.nextDelivery += 1
                running.tasks[id] = Task { [self] in
                    await deliver(notice, delivery: id, delays: delays, now: now)
                    _ = self.running.withLock { $0.tasks.removeValue(forKey: id) }
                }
            }
        }
    }

    private func deliver(_ notice: Notice, delivery: Int, delays: [Double], now: @Sendable () -> Double) async {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        var request = HTTPClientRequest(method: .post, url: notice.uri, headers: headers)
        request.body = Array(FormURLEncoded.serialize([("logout_token", notice.token)]).utf8)
        request.timeout = .seconds(10)
        for attempt in 1...(delays.count + 1) {
            if attempt > 1 {
                let delay = delays[attempt - 2]
                do { try await Task.sleep(for: .milliseconds(Int64(delay * 1000))) } catch { return }
            }
            guard !Task.isCancelled else { return }
            var record = DeliveryAttempt(delivery: delivery, clientId: notice.clientId, uri: notice.uri, attempt: attempt,
                                         at: now())
            if let client = running.withLock({ $0.client }) {
                do {
                    record.status = try await client.execute(request).status.code
                } catch {
                    record.failure = error.description
                }
            } else {
                record.failure = "the simulator is not serving"
            }
            note(record)
            if record.delivered { return }
        }
    }

    private func note(_ record: DeliveryAttempt) {
        running.withLock { running in
            running.attempts.append(record)
            if running.attempts.count > Self.attemptCapacity { running.attempts.removeFirst() }
        }
        let fields: KeyValuePairs<String, LogValue> = [
            "clientId": .string(record.clientId), "uri": .string(record.uri), "attempt": .int(record.attempt),
            "status": .int(record.status ?? 0), "failure": .string(record.failure ?? ""),
        ]
        if record.delivered { logger.info("backchannel.delivered", fields) } else { logger.warning("backchannel.failed", fields) }
    }

    /// Every attempt so far, oldest first.
    var attempts: [DeliveryAttempt] { running.withLock { $0.attempts } }

    /// Stops pending retries and forgets the log.
    func reset() {
        let tasks = running.withLock { running in
            defer { running.tasks = [:]; running.attempts = [] }
            return Array(running.tasks.values)
        }
        tasks.forEach { $0.cancel() }
    }

    /// Stops pending retries and lets go of the HTTP client (which it shuts down).
    func shutdown() async {
        reset()
        let client = running.withLock { running in
            defer { running.client = nil }
            return running.client
        }
        await client?.shutdown()
    }
}

/// One POST of a logout token, as `GET /dev/backchannel` lists it.
struct DeliveryAttempt: Sendable {
    /// Numbers one token's attempts together.
    var delivery: Int
    var clientId: String
    var uri: String
    /// 1 for the first POST, 2 for the first retry, …
    var attempt: Int
    var at: Double
    var status: Int?
    var failure: String?

    var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }

    var json: JSON {
        var object: JSONObject = ["delivery": .int(Int64(delivery)), "clientId": .string(clientId), "uri": .string(uri),
                                  "attempt": .int(Int64(attempt)), "at": .string(ISODate.format(at)),
                                  "delivered": .bool(delivered)]
        object["status"] = status.map { .int(Int64($0)) } ?? .null
        object["failure"] = failure.map { .string($0) } ?? .null
        return .object(object)
    }
}
