@testable import Redis
import System
import Testing
import TestSupport

/// The checks a Sentinel connection makes on the server it is sent to,
/// with a stand-in sentinel naming real servers.
@Suite("Sentinel: ROLE and READONLY", .serialized)
struct SentinelRoleTests {
    @Test("a server named as master that answers ROLE as a replica is refused, and the failure says so")
    func aReplicaIsNotTakenForTheMaster() async throws {
        let master = try await RedisServer.start()
        let replica = try await RedisServer.start(arguments: ["--replicaof", "127.0.0.1", String(master.port)])
        let sentinel = try #require(FakeSentinel(answering: replica.port))
        let loops = try EventLoopGroup(loops: 1, name: "sentinel-role")
        defer { loops.shutdown() }
        let monitor = SentinelMonitor(settings: SentinelSettings(sentinels: [RedisAddress(host: "127.0.0.1", port: Int(sentinel.port))],
                                                                 masterName: "mymaster"), loop: loops.loops[0])
        let client = RedisClient(configuration: RedisConfiguration(sentinel: monitor), loops: loops.loops)
        client.start()
        #expect(await eventually { client.connections[0].lastFailure != nil })
        #expect(client.connections[0].lastFailure == .notMaster("slave"))
        #expect(!client.isReady)
        // Once the sentinel names the master, the connection takes it.
        sentinel.answer(with: master.port)
        #expect(await client.waitUntilReady(timeout: .seconds(5)))
        await client.close()
        await replica.kill()
        await master.kill()
    }

    @Test("a master demoted under the connection: the write that meets READONLY fails, and the connection asks the sentinels again")
    func readOnlyAsksAgain() async throws {
        let first = try await RedisServer.start()
        let second = try await RedisServer.start()
        let sentinel = try #require(FakeSentinel(answering: first.port))
        let loops = try EventLoopGroup(loops: 1, name: "sentinel-readonly")
        defer { loops.shutdown() }
        let monitor = SentinelMonitor(settings: SentinelSettings(sentinels: [RedisAddress(host: "127.0.0.1", port: Int(sentinel.port))],
                                                                 masterName: "mymaster"), loop: loops.loops[0])
        let client = RedisClient(configuration: RedisConfiguration(sentinel: monitor,
                                                                   reconnectBackoff: .milliseconds(20) ... .milliseconds(100)),
                                 loops: loops.loops)
        client.start()
        #expect(await client.waitUntilReady(timeout: .seconds(5)))
        try await client.set(b("k"), b("on the first"))

        // The first becomes a replica of the second; the sentinel names the second.
        let demoted = await blocking { RedisControl.call(port: first.port, ["REPLICAOF", "127.0.0.1", String(second.port)]) }
        #expect(demoted == .simple("OK"))
        sentinel.answer(with: second.port)
        await #expect(throws: RedisError.self) { try await client.set(b("k"), b("refused")) }
        #expect(await eventually {
            (try? await client.set(b("k"), b("on the second"))) != nil
        }, "never wrote again: \(client.lastFailureReason ?? "-")")
        #expect(RedisControl.call(port: second.port, ["GET", "k"]) == .bulk("on the second"))
        await client.close()
        await second.kill()
        await first.kill()
    }
}
