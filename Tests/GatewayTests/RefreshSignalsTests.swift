import Core
import Crypto
import HTTP
import Modgud
import Observability
import Redis
import SessionsRedis
import System
import Testing
import TestSupport
import TokenRefreshRedis
@testable import Gateway
@testable import TokenRefresh

@Suite("Refresh signals: waiters")
struct RefreshSignalsTests {
    static let key = try! MACKey(derivedFrom: [UInt8](repeating: 7, count: 32), info: Array("test/one".utf8))
    static let otherKey = try! MACKey(derivedFrom: [UInt8](repeating: 8, count: 32), info: Array("test/one".utf8))

    /// The timer may end before `next` has started to wait (a stalled
    /// thread): `next` must then return at once, not wait for a signal
    /// that may never come.
    @Test func aTimerThatEndsBeforeTheWaitStillEndsIt() async throws {
        let signals = RefreshSignals()
        let waiter = signals.waiter(for: "refresh:one", key: Self.key)
        defer { waiter.cancel() }
        waiter.timeOut()
        let started = ContinuousClock.now
        let signal = await waiter.next(timeout: .seconds(30))
        #expect(signal == nil)
        #expect(ContinuousClock.now - started < .seconds(5), "returned at once, not after the 30 s timeout")
    }

    @Test func aSignalBeforeTheWaitIsKeptAndOneDuringItWakesIt() async throws {
        let signals = RefreshSignals()
        let early = signals.waiter(for: "refresh:two", key: Self.key)
        await signals.publish("refresh:two", .refreshed, key: Self.key)
        #expect(await early.next(timeout: .seconds(30)) == .refreshed)
        early.cancel()

        let waiting = signals.waiter(for: "refresh:two", key: Self.key)
        async let woken = waiting.next(timeout: .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        await signals.publish("refresh:two", .ended, key: Self.key)
        #expect(await woken == .ended)
        waiting.cancel()

        let unrelated = signals.waiter(for: "refresh:three", key: Self.key)
        await signals.publish("refresh:two", .refreshed, key: Self.key)
        #expect(await unrelated.next(timeout: .milliseconds(50)) == nil, "another session's signal never wakes it")
        unrelated.cancel()
    }

    /// A 429 whose body holds NUL bytes and invalid UTF-8 (and is larger
    /// than 64 KiB), with header values holding obs-text.
    static func awkward429() -> RefreshSignal {
        var body = Array(#"{"error":"rate_limited","note":""#.utf8) + [0x00, 0xFF, 0xC3, 0x28, 0xE2, 0x82, 0x00, 0x80]
        body += (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        return .rateLimited(awkward429Reply(body: body))
    }

    /// The reply `awkward429` carries: only fields that travel with a 429.
    static func awkward429Reply(body: [UInt8] = []) -> ModgudReply {
        var headers = HTTPHeaders()
        headers.add("Retry-After", "7")
        let obsText: [UInt8] = Array(#""token";q=100;w=60;n=""#.utf8) + [0x80, 0xE9, 0xFF, 0x22]
        obsText.withUnsafeBufferPointer { value in
            Array("RateLimit-Policy".utf8).withUnsafeBufferPointer { headers.add(name: $0, value: value) }
        }
        headers.add("RateLimit", #""token";r=0;t=7"#)
        headers.add("Content-Type", "application/json; charset=utf-8")
        return ModgudReply(status: .tooManyRequests, headers: headers, body: body)
    }

    /// A 429 is carried whole and exactly: its Retry-After, RateLimit-*
    /// and Content-Type fields and its body, byte for byte.
    @Test func aRateLimitSignalCarriesThe429ByteForByte() throws {
        let signal = Self.awkward429()
        let payload = signal.payload
        #expect(!payload.contains(UInt8(ascii: "\n")) && !payload.contains(0), "one line of text")
        #expect(RefreshSignal(payload: payload[...]) == signal, "headers and body compared as bytes")
        for other in [RefreshSignal.refreshed, .ended, .unavailable] {
            #expect(RefreshSignal(payload: other.payload[...]) == other)
        }
        for bad in ["rate_limited", "rate_limited !!", "rate_limited  UmV0cnk", "rate_limited  :Nw", "refreshed x", "fresh"] {
            #expect(RefreshSignal(payload: Array(bad.utf8)[...]) == nil, "\(bad)")
        }
    }

    /// Through Redis to a second instance's waiter: the 429 arrives
    /// exactly, and the answer made from it holds the same bytes.
    @Test func a429ReachesAWaiterOnAnotherInstanceByteForByte() async throws {
        let instances = try await TwoInstances.start()
        let signal = Self.awkward429()
        let waiter = instances.b.waiter(for: "lock-429", key: Self.key)
        await instances.a.publish("lock-429", signal, key: Self.key)
        let received = await waiter.next(timeout: .seconds(10))
        waiter.cancel()
        #expect(received == signal)

        guard case .rateLimited(let reply)? = RefreshResult(failure: received), case .rateLimited(_, let body) = signal else {
            Issue.record("no 429")
            return await instances.stop()
        }
        let answer = ModgudRelay(metrics: MetricsRegistry()).rateLimitedResponse(reply, endpoint: "refresh", context: RefreshFixture.context())
        #expect(answer.status == .tooManyRequests)
        guard case .bytes(let relayedBody) = answer.body else { Issue.record("no body"); return await instances.stop() }
        #expect(relayedBody == body)
        var relayed = answer.headers
        relayed.removeFields { name, _ in String(decoding: name, as: UTF8.self) == "Cache-Control" }
        #expect(relayed == Self.awkward429Reply().headers, "every relayed field, byte for byte")
        await instances.stop()
    }

    /// Messages written straight into Redis by someone without the
    /// session's key (no tag, another key's tag, no lock name) never reach
    /// the waiter; they are counted and logged without their content, and
    /// the real outcome still arrives.
    @Test func aForgedSignalIsRefusedAndTheRealOneStillArrives() async throws {
        let instances = try await TwoInstances.start()
        let waiter = instances.b.waiter(for: "lock-forged", key: Self.key)
        let forged: [[UInt8]] = [
            Array(#"lock-forged rate_limited {"headers":[["Retry-After","99"]],"body":"forged"}"#.utf8),
            Array("lock-forged refreshed".utf8),
            RefreshSignal.ended.message(lockName: "lock-forged", key: Self.otherKey),
            // Another session's genuine message moved onto this lock name.
            Array("lock-forged".utf8)
                + RefreshSignal.unavailable.message(lockName: "lock-other", key: Self.key).drop { $0 != UInt8(ascii: " ") },
            Array("nospace".utf8),
        ]
        for message in forged { _ = try await instances.client.publish(RedisRefreshStore.channel, message) }
        #expect(await waiter.next(timeout: .milliseconds(500)) == nil, "no forged message reached the waiter")
        await instances.a.publish("lock-forged", .unavailable, key: Self.key)
        #expect(await waiter.next(timeout: .seconds(10)) == .unavailable)
        waiter.cancel()
        #expect(metricValue(instances.metrics.render(), "bff_refresh_outcomes_refused_total", #"source="message""#) == 5)
        let lines = instances.logs.lines.filter { $0.contains(#""event":"refresh.outcome_refused""#) }
        #expect(lines.count == 5)
        #expect(!lines.contains { $0.contains("forged") || $0.contains("lock-forged") }, "never the content")
        await instances.stop()
    }

    /// A genuine message with any one byte changed (in its lock name, its
    /// tag, its outcome word, its body or a field) is refused; the same
    /// message unchanged is taken.
    @Test func aTamperedByteInAGenuineMessageIsRefused() async throws {
        let instances = try await TwoInstances.start()
        let lockName = "lock-tampered"
        let waiter = instances.b.waiter(for: lockName, key: Self.key)
        let signal = RefreshSignal.rateLimited(fields: [.init("Retry-After", "7")], body: Array("slow down".utf8))
        let genuine = signal.message(lockName: lockName, key: Self.key)
        let tagStart = lockName.utf8.count + 1
        let payloadStart = tagStart + 44
        let positions = [3, tagStart, tagStart + 20, payloadStart, payloadStart + 13, genuine.count - 1]
        for position in positions {
            var tampered = genuine
            tampered[position] = tampered[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            _ = try await instances.client.publish(RedisRefreshStore.channel, tampered)
        }
        #expect(await waiter.next(timeout: .milliseconds(500)) == nil, "no tampered message reached the waiter")
        // The one in the lock name names a session nobody waits for here: dropped unread.
        #expect(metricValue(instances.metrics.render(), "bff_refresh_outcomes_refused_total", #"source="message""#)
            == Double(positions.count - 1))
        _ = try await instances.client.publish(RedisRefreshStore.channel, genuine)
        #expect(await waiter.next(timeout: .seconds(10)) == signal)
        waiter.cancel()
        await instances.stop()
    }
}

/// Two gateway instances' signals on one real redis-server: `a` publishes,
/// `b` (counting into `metrics`, logging into `logs`) listens, and `client`
/// writes into Redis directly.
struct TwoInstances {
    let server: RedisServer
    let group: EventLoopGroup
    let client: RedisClient
    let a: RefreshSignals
    let b: RefreshSignals
    let metrics: MetricsRegistry
    let logs: LogCapture

    static func start() async throws -> TwoInstances {
        let server = try await RedisServer.start()
        let group = try EventLoopGroup(loops: 1, name: "signals-test")
        let configuration = RedisConfiguration(host: "127.0.0.1", port: Int(server.port))
        let client = RedisClient(configuration: configuration, loops: group.loops)
        client.start()
        let (metrics, logs) = (MetricsRegistry(), LogCapture())
        let a = RefreshSignals(store: RedisRefreshStore(records: RedisSessionStore(client: client), client: client,
                                                        subscriber: RedisSubscriber(configuration: configuration, loop: group.loops[0])))
        let b = RefreshSignals(store: RedisRefreshStore(records: RedisSessionStore(client: client), client: client,
                                                        subscriber: RedisSubscriber(configuration: configuration, loop: group.loops[0])),
                               metrics: metrics, logger: Logger(sink: .capturing(logs)))
        a.start()
        b.start()
        let instances = TwoInstances(server: server, group: group, client: client, a: a, b: b, metrics: metrics, logs: logs)
        // Both subscribed before anything is published.
        for _ in 0..<500 {
            let reply = try? await client.send([Array("PUBSUB".utf8), Array("NUMSUB".utf8), RedisRefreshStore.channel])
            if reply?.array?.last?.integer == 2 { return instances }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the subscriptions never started")
        return instances
    }

    func stop() async {
        await a.close()
        await b.close()
        await client.close()
        group.shutdown()
        await server.kill()
    }
}
