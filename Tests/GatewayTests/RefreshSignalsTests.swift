import Testing
import HTTP
@testable import Gateway

@Suite("Refresh signals: waiters")
struct RefreshSignalsTests {
    /// The timer may end before `next` has started to wait (a stalled
    /// thread): `next` must then return at once, not wait for a signal
    /// that may never come.
    @Test func aTimerThatEndsBeforeTheWaitStillEndsIt() async throws {
        let signals = RefreshSignals()
        let waiter = signals.waiter(for: "refresh:one")
        defer { waiter.cancel() }
        waiter.timeOut()
        let started = ContinuousClock.now
        let signal = await waiter.next(timeout: .seconds(30))
        #expect(signal == nil)
        #expect(ContinuousClock.now - started < .seconds(5), "returned at once, not after the 30 s timeout")
    }

    @Test func aSignalBeforeTheWaitIsKeptAndOneDuringItWakesIt() async throws {
        let signals = RefreshSignals()
        let early = signals.waiter(for: "refresh:two")
        await signals.publish("refresh:two", .refreshed)
        #expect(await early.next(timeout: .seconds(30)) == .refreshed)
        early.cancel()

        let waiting = signals.waiter(for: "refresh:two")
        async let woken = waiting.next(timeout: .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        await signals.publish("refresh:two", .ended)
        #expect(await woken == .ended)
        waiting.cancel()

        let unrelated = signals.waiter(for: "refresh:three")
        await signals.publish("refresh:two", .refreshed)
        #expect(await unrelated.next(timeout: .milliseconds(50)) == nil, "another session's signal never wakes it")
        unrelated.cancel()
    }

    /// A 429 travels to other instances' waiters whole: its Retry-After,
    /// RateLimit-* and Content-Type fields and its body, byte for byte.
    @Test func aRateLimitSignalCarriesThe429Whole() throws {
        let body = Array(#"{"error":"rate_limited","policy":"token","dimension":"client","retryAfterSeconds":7}"#.utf8)
        var headers = HTTPHeaders()
        headers.add("Retry-After", "7")
        headers.add("RateLimit-Policy", #""token";q=100;w=60"#)
        headers.add("RateLimit", #""token";r=0;t=7"#)
        headers.add("Content-Type", "application/json; charset=utf-8")
        let signal = RefreshSignal.rateLimited(headers: headers, body: body)
        let encoded = signal.encoded
        #expect(!encoded.contains("\n"), "one line")
        #expect(RefreshSignal(encoded: Substring(encoded)) == signal)
        for other in [RefreshSignal.refreshed, .ended, .unavailable] {
            #expect(RefreshSignal(encoded: Substring(other.encoded)) == other)
        }
        #expect(RefreshSignal(encoded: "rate_limited {not json") == nil)
        #expect(RefreshSignal(encoded: #"rate_limited {"headers":[["Retry-After"]],"body":""}"#) == nil)
    }
}
