import Core
import Foundation
@testable import Redis
import System
import Testing

/// GET round trip through RedisClient beside `redis-benchmark -t get -n
/// 100000 -c 1` against the same server, in the same run. Only with BENCH
/// set (Tests/Benchmarks/redis_bench.sh runs it in release mode).
@Suite("Redis benchmark", .enabled(if: ProcessInfo.processInfo.environment["BENCH"] != nil))
struct BenchmarkTests {
    @Test("GET round-trip p50: RedisClient vs redis-benchmark")
    func getRoundTrip() async throws {
        let count = Int(ProcessInfo.processInfo.environment["BENCH_N"] ?? "") ?? 20_000
        try await withRedis(loops: 2) { (redis: RedisFixture) async throws in
            let client = redis.client
            try await client.set(b("key:__rand_int__"), Array(repeating: UInt8(ascii: "x"), count: 3))
            let loop = redis.group.loops[0]

            let onLoop = try await Task(executorPreference: loop) {
                try await Self.measure(count: count) { _ = try await client.get(b("key:__rand_int__")) }
            }.value
            let offLoop = try await Self.measure(count: count) { _ = try await client.get(b("key:__rand_int__")) }
            let pipelined = try await Task(executorPreference: loop) {
                try await Self.throughput(client: client, total: 100_000, concurrency: 64)
            }.value
            let reference = try Self.redisBenchmark(port: redis.server.port)

            print("""
            redis GET round trip, \(count) sequential requests, 3-byte value, loopback
              RedisClient, task on the connection's loop: p50 \(Self.format(onLoop.p50)) µs  p99 \(Self.format(onLoop.p99)) µs
              RedisClient, task on the cooperative pool:  p50 \(Self.format(offLoop.p50)) µs  p99 \(Self.format(offLoop.p99)) µs
              redis-benchmark -t get -n 100000 -c 1:      p50 \(reference.p50) ms  (\(reference.rps) requests/s)
              RedisClient pipelined, 64 tasks on one loop: \(Int(pipelined)) GET/s
            """)
        }
    }

    private struct Percentiles: Sendable {
        let p50: Double
        let p99: Double
    }

    private static func measure(count: Int, _ body: () async throws -> Void) async throws -> Percentiles {
        for _ in 0..<1000 { try await body() }
        var samples: [UInt64] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = MonotonicClock.now()
            try await body()
            samples.append(MonotonicClock.now() - start)
        }
        samples.sort()
        return Percentiles(p50: Double(samples[count / 2]) / 1000, p99: Double(samples[count * 99 / 100]) / 1000)
    }

    private static func throughput(client: RedisClient, total: Int, concurrency: Int) async throws -> Double {
        let loop = client.connections[0].loop
        let start = MonotonicClock.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask(executorPreference: loop) {
                    for _ in 0..<(total / concurrency) { _ = try await client.get(b("key:__rand_int__")) }
                }
            }
            try await group.waitForAll()
        }
        return Double(total) / (Double(MonotonicClock.now() - start) / 1e9)
    }

    private static func redisBenchmark(port: UInt16) throws -> (p50: String, rps: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-benchmark")
        process.arguments = ["-h", "127.0.0.1", "-p", String(port), "-t", "get", "-n", "100000", "-c", "1", "--csv"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",...
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("\"GET\"") } ?? ""
        let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return (fields.count > 4 ? fields[4] : "?", fields.count > 1 ? fields[1] : "?")
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
