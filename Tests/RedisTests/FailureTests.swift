import Core
@testable import Redis
import System
import Testing

@Suite("Timeouts, outages, reconnects and closing")
struct FailureTests {
    @Test("a command past commandTimeout fails with .timedOut, the others with .connectionLost; then the client recovers")
    func commandTimeout() async throws {
        try await withRedis(loops: 1, configure: { $0.commandTimeout = .milliseconds(200) }) { (redis: RedisFixture) async throws in
            let client = redis.client
            let clock = ContinuousClock()
            let start = clock.now
            // Both from tasks on the connection's loop: written in this order
            // in one loop round, so the GET waits behind the sleeping command.
            let loop = redis.group.loops[0]
            let slow = Task(executorPreference: loop) {
                await redisError { try await client.send([b("DEBUG"), b("SLEEP"), b("1")]) }
            }
            let queued = Task(executorPreference: loop) {
                await redisError { try await client.get(b("x")) }
            }
            let (slowError, queuedError) = (await slow.value, await queued.value)
            let elapsed = clock.now - start
            #expect(slowError == .timedOut)
            #expect(queuedError == .connectionLost)
            #expect(elapsed >= .milliseconds(190) && elapsed < .milliseconds(700), "timed out after \(elapsed)")
            #expect(client.connections[0].lastFailure == .commandTimedOut)

            // The server is still asleep; the client reconnects once it answers.
            #expect(await client.waitUntilReady(timeout: .seconds(5)))
            try await client.set(b("after"), b("ok"))
            #expect(try await client.get(b("after")) == b("ok"))
        }
    }

    @Test("a batch past the timeout fails as a whole with .timedOut")
    func batchTimeout() async throws {
        try await withRedis(loops: 1, configure: { $0.commandTimeout = .milliseconds(150) }) { (redis: RedisFixture) async throws in
            let error = await redisError { try await redis.client.send(batch: [[b("DEBUG"), b("SLEEP"), b("0.6")], [b("PING")]]) }
            #expect(error == .timedOut)
            #expect(await redis.client.waitUntilReady(timeout: .seconds(5)))
            try await redis.client.ping()
        }
    }

    @Test("server stopped: .unavailable within a few ms, isReady false; restarted: reconnects on its own")
    func outageAndRecovery() async throws {
        try await withRedis(configure: { $0.reconnectBackoff = .milliseconds(20) ... .milliseconds(300) }) { (redis: RedisFixture) async throws in
            let client = redis.client
            try await client.set(b("before"), b("1"))
            let oldContexts = await client.connections.asyncMap { await $0.contextProbe() }

            await redis.server.stop()
            #expect(await eventually(timeout: .seconds(2)) { !client.isReady })
            #expect(client.connections.allSatisfy { !$0.isReady })

            let clock = ContinuousClock()
            for _ in 0..<20 {
                let start = clock.now
                let error = await redisError { try await client.get(b("before")) }
                let elapsed = clock.now - start
                #expect(error == .unavailable)
                #expect(elapsed < .milliseconds(5), "failing took \(elapsed)")
            }
            // Straight to a connection, from its own loop too.
            let connection = client.connections[0]
            let onLoop = await Task(executorPreference: connection.loop) {
                await redisError { try await connection.send([b("PING")]) }
            }.value
            #expect(onLoop == .unavailable)
            try await Task.sleep(for: .milliseconds(400))   // a few refused reconnect attempts
            #expect(client.lastFailureReason != nil)
            #expect(oldContexts.allSatisfy { $0.existed && $0.isReleased })

            try await redis.server.restart()
            #expect(await client.waitUntilReady(timeout: .seconds(5)))
            #expect(try await client.get(b("before")) == nil)   // a fresh server: no data kept
            try await client.set(b("after"), b("2"))
            #expect(try await client.get(b("after")) == b("2"))
            #expect(client.lastFailureReason == nil)
        }
    }

    @Test("a killed server (no goodbye) is noticed too, and pending commands fail with .connectionLost")
    func killedServer() async throws {
        try await withRedis(loops: 1, configure: { $0.reconnectBackoff = .milliseconds(20) ... .milliseconds(200) }) { (redis: RedisFixture) async throws in
            let client = redis.client
            async let pending = redisError { try await client.send([b("DEBUG"), b("SLEEP"), b("0.3")]) }
            try await Task.sleep(for: .milliseconds(50))
            await redis.server.kill()
            #expect(await pending == .connectionLost)
            #expect(await eventually(timeout: .seconds(2)) { !client.isReady })
            try await redis.server.restart()
            #expect(await client.waitUntilReady(timeout: .seconds(5)))
            try await client.ping()
        }
    }

    @Test("close() fails pending commands, closes the socket and stops reconnecting")
    func close() async throws {
        try await withRedis(loops: 1) { (redis: RedisFixture) async throws in
            let connection = redis.client.connections[0]
            let probe = await connection.contextProbe()
            #expect(probe.existed && !probe.isReleased)
            async let pending = redisError { try await connection.send([b("DEBUG"), b("SLEEP"), b("0.2")]) }
            try await Task.sleep(for: .milliseconds(30))
            await connection.close()
            #expect(await pending == .connectionLost)
            #expect(!connection.isReady)
            #expect(probe.isReleased)
            #expect(await redisError { try await connection.send([b("PING")]) } == .unavailable)
            #expect(await connection.waitUntilReady(timeout: .milliseconds(100)) == false)
            await connection.close()   // idempotent
        }
    }

    @Test("a connection that never reached a server is closed cleanly; connect timeout applies")
    func neverConnected() async throws {
        let group = try EventLoopGroup(loops: 1, name: "redis-test")
        // Nothing listens on port 1 of loopback: refused at once, then back-off.
        let refused = RedisConnection(configuration: RedisConfiguration(host: "127.0.0.1", port: 1), loop: group.loops[0])
        refused.start()
        #expect(await eventually(timeout: .seconds(2)) {
            if case .connect = refused.lastFailure { return true }
            return false
        })
        await refused.close()

        // A TEST-NET address never answers: the connect timeout ends the attempt.
        var configuration = RedisConfiguration(host: "192.0.2.1", port: 6379)
        configuration.connectTimeout = .milliseconds(100)
        let blackhole = RedisConnection(configuration: configuration, loop: group.loops[0])
        blackhole.start()
        #expect(await eventually(timeout: .seconds(2)) { blackhole.lastFailure != nil })
        let failure = blackhole.lastFailure
        #expect(failure == .connectTimedOut || { if case .connect = failure { return true } else { return false } }())
        await blackhole.close()
        group.shutdown()
    }

    @Test("back-off grows exponentially with jitter and stays within bounds", arguments: 1...12)
    func backoff(attempt: Int) {
        let range = Duration.milliseconds(50) ... .seconds(2)
        let delay = ConnectionCore.backoff(attempt: attempt, range: range)
        let base = min(Duration.seconds(2), .milliseconds(50) * (1 << (attempt - 1)))
        #expect(delay <= base && delay >= base / 2)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var out: [T] = []
        for element in self { out.append(await transform(element)) }
        return out
    }
}
