import Core
@testable import Redis
import Synchronization
import System
import Testing

@Suite("Pipelining and connection choice")
struct PipeliningTests {
    @Test("1,000 concurrent sends from many tasks, on and off the loops, all matched correctly")
    func concurrentSends() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            let loops = redis.group.loops
            let counters = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<1000 {
                    let body: @Sendable () async throws -> Int = {
                        let key = b("key-\(i)"), value = b("value-\(i)-") + (0..<(i % 50)).map { UInt8($0) }
                        try await client.set(key, value)
                        let read = try await client.get(key)
                        #expect(read == value)
                        return try await client.send([b("INCR"), b("counter")]).integer ?? -1
                    }
                    // A third on each loop (no hop), the rest from the cooperative pool.
                    if i % 3 == 0 {
                        group.addTask(executorPreference: loops[i % loops.count], operation: body)
                    } else {
                        group.addTask(operation: body)
                    }
                }
                var all: [Int] = []
                for try await value in group { all.append(value) }
                return all
            }
            #expect(counters.sorted() == Array(1...1000))
        }
    }

    @Test("replies stay in order per connection: INCRs sent back to back from one loop")
    func orderPerConnection() async throws {
        try await withRedis(loops: 1) { (redis: RedisFixture) async throws in
            let connection = redis.client.connections[0]
            let values = await Task(executorPreference: connection.loop) {
                // Start all sends before any reply can arrive: child tasks on
                // the loop write in the order they start, in one loop round.
                await withTaskGroup(of: (Int, Int).self) { group in
                    for i in 0..<200 {
                        group.addTask(executorPreference: connection.loop) {
                            (i, (try? await connection.send([b("INCR"), b("ordered")]).integer) ?? -1)
                        }
                    }
                    var pairs: [(Int, Int)] = []
                    for await pair in group { pairs.append(pair) }
                    return pairs
                }
            }.value
            #expect(values.count == 200)
            // Written in task order, answered in write order.
            #expect(values.allSatisfy { $0.1 == $0.0 + 1 })
        }
    }

    @Test("a batch is pipelined and answered in order; an error reply stays in its place")
    func batch() async throws {
        try await withRedis { (redis: RedisFixture) async throws in
            let client = redis.client
            var commands: [[[UInt8]]] = []
            for i in 0..<100 { commands.append([b("SET"), b("b\(i)"), b("v\(i)")]) }
            commands.append([b("INCR"), b("b0")])
            for i in 0..<100 { commands.append([b("GET"), b("b\(i)")]) }
            let replies = try await client.send(batch: commands)
            #expect(replies.count == 201)
            let allOK = replies[0..<100].allSatisfy { $0.isOK }
            #expect(allOK)
            #expect(replies[100] == .error("ERR value is not an integer or out of range"))
            for i in 0..<100 { #expect(replies[101 + i] == .string(b("v\(i)"))) }
            #expect(try await client.send(batch: []) == [])
            #expect(await redisError { try await client.send(batch: [[b("PING")], []]) } == .protocolError)
        }
    }

    @Test("a call made on loop k uses connection k")
    func loopAffinity() async throws {
        try await withRedis(loops: 3) { (redis: RedisFixture) async throws in
            let client = redis.client
            for (k, loop) in redis.group.loops.enumerated() {
                let direct = try await client.connections[k].send([b("CLIENT"), b("ID")])
                let viaClient = try await Task(executorPreference: loop) {
                    try await client.send([b("CLIENT"), b("ID")])
                }.value
                #expect(direct == viaClient)
            }
            let ids = try await withThrowingTaskGroup(of: RedisValue.self) { group in
                for connection in client.connections { group.addTask { try await connection.send([b("CLIENT"), b("ID")]) } }
                var all: Set<RedisValue> = []
                for try await id in group { all.insert(id) }
                return all
            }
            #expect(ids.count == 3)
        }
    }
}
