import System

/// The loop-confined side of a ``RedisTrackedCache``: the tracking
/// connection's set-up after every (re)connect, the invalidation messages,
/// and the heartbeat.
///
/// ```
/// ready → CLIENT ID → CLIENT TRACKING ON REDIRECT <id> BCAST PREFIX <p>
///       → SUBSCRIBE __redis__:invalidate <heartbeat channel>
///       → both confirmed: tracking (entries may be filled)
///       → a heartbeat came back: current (entries may be served)
/// dropped, closed, or a set-up step refused → everything forgotten
/// ```
final class TrackingCore: ConnectionCoreObserver {
    static let invalidationChannel = Array("__redis__:invalidate".utf8)

    let connection: ConnectionCore
    private let entries: TrackedEntries
    private let publisher: RedisClient
    private let settings: RedisTrackedCache.Settings
    /// A channel no other cache uses, so only this cache's heartbeats come back on it.
    private let heartbeatChannel: [UInt8]
    /// This connection's id in `entries`.
    let trackerID: UInt64
    /// Channels whose subscription the server has not confirmed yet.
    private var unconfirmed: Set<[UInt8]> = []
    /// Whether this connection's set-up is complete and confirmed.
    private var tracking = false
    /// Heartbeats sent and not yet back: sequence number → monotonic ns sent.
    private var heartbeats: [UInt64: UInt64] = [:]
    private var nextHeartbeat: UInt64 = 1
    private var heartbeatTimer: UInt64?
    private var closed = false

    init(connection: ConnectionCore, entries: TrackedEntries, publisher: RedisClient, settings: RedisTrackedCache.Settings,
         trackerID: UInt64) {
        self.trackerID = trackerID
        self.connection = connection
        self.entries = entries
        self.publisher = publisher
        self.settings = settings
        heartbeatChannel = Array("modgud-bff:tracking:\(String(UInt64.random(in: 1...UInt64.max), radix: 16))".utf8)
        connection.observer = self
    }

    func start() {
        guard !closed, heartbeatTimer == nil else { return }
        connection.start()
        scheduleHeartbeat()
    }

    func close() {
        closed = true
        if let heartbeatTimer { connection.loop.cancelTimer(heartbeatTimer) }
        heartbeatTimer = nil
        stopTracking()
        connection.close()
    }

    // MARK: Set-up

    func coreDidBecomeReady(_ context: RedisWire) {
        stopTracking()
        let sent = connection.send(RESPCommand.encode([Array("CLIENT".utf8), Array("ID".utf8)])) { [self] result in
            guard case .success(.integer(let id)) = result else { return refuse(context, "CLIENT ID", result) }
            enableTracking(redirectingTo: id, on: context)
        }
        if !sent { refuse(context, "CLIENT ID", nil) }
    }

    private func enableTracking(redirectingTo id: Int, on context: RedisWire) {
        let tracking = RESPCommand.encode([
            Array("CLIENT".utf8), Array("TRACKING".utf8), Array("ON".utf8), Array("REDIRECT".utf8), Array(String(id).utf8),
            Array("BCAST".utf8), Array("PREFIX".utf8), settings.keyPrefix,
        ])
        let sent = connection.send(tracking) { [self] result in
            guard case .success(let reply) = result, reply.isOK else { return refuse(context, "CLIENT TRACKING", result) }
            unconfirmed = [Self.invalidationChannel, heartbeatChannel]
            guard context.issueSubscription(RESPCommand.encode([Command.subscribe, Self.invalidationChannel, heartbeatChannel]))
            else { return refuse(context, "SUBSCRIBE", nil) }
        }
        if !sent { refuse(context, "CLIENT TRACKING", nil) }
    }

    /// A set-up step failed or was refused (an old server, an ACL without
    /// `CLIENT`): drop the connection; it is made again with a growing
    /// back-off, and the status says which step failed.
    private func refuse(_ context: RedisWire, _ step: String, _ result: Result<RedisValue, RedisError>?) {
        var text = "\(step) was not accepted"
        if case .success(.error(let message)) = result { text += ": " + message }
        connection.refuse(context, because: .handshake(text))
    }

    func coreDidLoseConnection() {
        stopTracking()
    }

    private func stopTracking() {
        tracking = false
        unconfirmed = []
        heartbeats.removeAll()
        entries.flush(tracking: false, tracker: trackerID)
    }

    // MARK: Messages

    func core(didReceivePush value: RedisValue) {
        guard case .array(let items) = value, items.count >= 3,
              let kind = items[0].bytes, let channel = items[1].bytes else { return }
        switch kind {
        case Array("message".utf8) where channel == Self.invalidationChannel:
            invalidate(items[2])
        case Array("message".utf8) where channel == heartbeatChannel:
            if let number = items[2].bytes.flatMap({ UInt64(String(decoding: $0, as: UTF8.self)) }),
               let sentAt = heartbeats[number]
            {
                heartbeats = heartbeats.filter { $0.key > number }
                entries.confirm(sentAt: sentAt, tracker: trackerID)
            }
        case Array("subscribe".utf8):
            guard unconfirmed.remove(channel) != nil, unconfirmed.isEmpty else { return }
            tracking = true
            entries.flush(tracking: true, tracker: trackerID)
            sendHeartbeat()
        default:
            break
        }
    }

    /// An invalidation message: the keys that changed, or nil when the
    /// server flushed its data set.
    private func invalidate(_ payload: RedisValue) {
        switch payload {
        case .array(let keys):
            let prefix = settings.keyPrefix
            entries.invalidate(keys.compactMap { key in
                guard let bytes = key.bytes, bytes.starts(with: prefix) else { return nil }
                return String(decoding: bytes[prefix.count...], as: UTF8.self)
            })
        default:
            entries.flush(tracking: true, tracker: trackerID)
        }
    }

    // MARK: Heartbeat

    private func scheduleHeartbeat() {
        guard !closed else { return }
        heartbeatTimer = connection.loop.schedule(after: settings.heartbeatInterval) { [self] in
            sendHeartbeat()
            scheduleHeartbeat()
        }
    }

    /// Publishes the next heartbeat through the command connections, once
    /// tracking is confirmed; forgets heartbeats that never came back.
    private func sendHeartbeat() {
        guard tracking, !closed else { return }
        let number = nextHeartbeat
        nextHeartbeat &+= 1
        let now = MonotonicClock.now()
        let lost = settings.maxStaleness.nanoseconds
        heartbeats = heartbeats.filter { now &- $0.value < lost }
        heartbeats[number] = now
        let (publisher, channel) = (publisher, heartbeatChannel)
        Task { _ = try? await publisher.publish(channel, Array(String(number).utf8)) }
    }
}
