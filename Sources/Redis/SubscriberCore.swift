import System

/// The loop-confined state of a ``RedisSubscriber``: which streams listen
/// on which channel, and the connection they share. On every (re)connect it
/// subscribes to all channels again.
final class SubscriberCore: ConnectionCoreObserver {
    typealias Stream = AsyncStream<[UInt8]>.Continuation

    let connection: ConnectionCore
    private var streams: [[UInt8]: [UInt64: Stream]] = [:]
    /// Callers of `subscribe` waiting for the server's confirmation.
    private var confirmations: [[UInt8]: [CheckedContinuation<Void, Never>]] = [:]
    private var closed = false

    /// `SSUBSCRIBE`/`SUNSUBSCRIBE` and `smessage` (Redis 7 sharded
    /// pub/sub, one channel per command: channels of one command must share
    /// a slot) instead of the classic commands.
    let sharded: Bool
    private var subscribeCommand: [UInt8] { sharded ? Command.ssubscribe : Command.subscribe }

    init(connection: ConnectionCore, sharded: Bool = false) {
        self.sharded = sharded
        self.connection = connection
        connection.observer = self
    }

    func add(_ stream: Stream, id: UInt64, channel: [UInt8], confirmed: CheckedContinuation<Void, Never>) {
        if closed {
            stream.finish()
            return confirmed.resume()
        }
        let isNew = streams[channel] == nil
        streams[channel, default: [:]][id] = stream
        guard let context = connection.readyContext else { return confirmed.resume() }
        if isNew {
            guard context.issueSubscription(RESPCommand.encode([subscribeCommand, channel])) else { return confirmed.resume() }
            confirmations[channel, default: []].append(confirmed)
        } else if confirmations[channel] != nil {
            confirmations[channel]?.append(confirmed)
        } else {
            confirmed.resume()
        }
    }

    func remove(id: UInt64, channel: [UInt8]) {
        guard streams[channel]?.removeValue(forKey: id) != nil, streams[channel]?.isEmpty == true else { return }
        streams[channel] = nil
        if let context = connection.readyContext {
            _ = context.issueSubscription(RESPCommand.encode([sharded ? Command.sunsubscribe : Command.unsubscribe, channel]))
        }
    }

    func close() {
        closed = true
        connection.close()
        let all = streams.values.flatMap(\.values)
        streams.removeAll()
        for stream in all { stream.finish() }
        resumeConfirmations()
    }

    private func resumeConfirmations() {
        let waiting = confirmations.values.flatMap { $0 }
        confirmations.removeAll()
        for waiter in waiting { waiter.resume() }
    }

    // MARK: ConnectionCoreObserver

    func coreDidBecomeReady(_ context: RedisWire) {
        guard !streams.isEmpty else { return }
        if sharded {
            for channel in streams.keys { _ = context.issueSubscription(RESPCommand.encode([subscribeCommand, channel])) }
        } else {
            _ = context.issueSubscription(RESPCommand.encode([Command.subscribe] + Array(streams.keys)))
        }
    }

    func coreDidLoseConnection() {
        resumeConfirmations()
    }

    func core(didReceivePush value: RedisValue) {
        guard case .array(let items) = value, items.count >= 3,
              let kind = items[0].text, let channel = items[1].bytes else { return }
        switch kind.lowercased() {
        case "message", "smessage":
            guard let payload = items[2].bytes, let listeners = streams[channel] else { return }
            for stream in listeners.values { stream.yield(payload) }
        case "subscribe", "ssubscribe":
            for waiter in confirmations.removeValue(forKey: channel) ?? [] { waiter.resume() }
        default:
            break
        }
    }
}
