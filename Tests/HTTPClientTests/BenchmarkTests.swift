import Foundation
import HTTP
import HTTPClient
import System
import Testing

/// CPU per request of a small GET, split by thread: the client's loops and
/// the task threads versus the upstream's loops. Opt-in (it prints figures,
/// asserts little):
///     HTTPCLIENT_BENCH=20000 swift test -c release --filter HTTPClientBenchmark
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["HTTPCLIENT_BENCH"] != nil))
struct HTTPClientBenchmark {
    static var count: Int { Int(ProcessInfo.processInfo.environment["HTTPCLIENT_BENCH"] ?? "") ?? 20000 }

    @Test(arguments: [1, 16])
    func smallGetFromTheClientsLoop(concurrency: Int) async throws {
        try await run(label: "on client loop, \(concurrency) in flight", concurrency: concurrency, onLoop: true)
    }

    @Test(arguments: [1, 16])
    func smallGetFromThePool(concurrency: Int) async throws {
        try await run(label: "from the global pool, \(concurrency) in flight", concurrency: concurrency, onLoop: false)
    }

    func run(label: String, concurrency: Int, onLoop: Bool) async throws {
        let upstream = try await Upstream.start(loops: 1, responder: { _ in
            HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], bytes: Array("hello, world!".utf8))
        })
        try await withClient(loops: 1) { client, group in
            let url = upstream.url("/small?x=1")
            let perWorker = Self.count / concurrency
            @Sendable func worker() async -> Int {
                var ok = 0
                for _ in 0..<perWorker {
                    if (try? await client.execute(HTTPClientRequest(url: url)))?.status == .ok { ok += 1 }
                }
                return ok
            }
            _ = await worker() // warm up: connections, caches
            let before = ThreadCPU.sample()
            let start = ContinuousClock.now
            let ok = await withTaskGroup(of: Int.self) { tasks in
                for _ in 0..<concurrency {
                    if onLoop {
                        tasks.addTask(executorPreference: group.loops[0]) { await worker() }
                    } else {
                        tasks.addTask { await worker() }
                    }
                }
                return await tasks.reduce(0, +)
            }
            let elapsed = ContinuousClock.now - start
            let after = ThreadCPU.sample()
            let total = perWorker * concurrency
            #expect(ok == total)
            let upstreamCPU = after.upstream - before.upstream
            let clientCPU = (after.total - before.total) - upstreamCPU
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(String(format: "BENCH %@: %d requests in %.2f s (%.0f req/s); client CPU %.1f µs/request (loop %.1f), upstream %.1f µs/request",
                         label, total, seconds, Double(total) / seconds,
                         clientCPU / Double(total) * 1e6, (after.client - before.client) / Double(total) * 1e6,
                         upstreamCPU / Double(total) * 1e6))
        }
        await upstream.stop()
    }
}

/// CPU seconds used so far by this process's threads, by thread name.
enum ThreadCPU {
    struct Sample { var total = 0.0, client = 0.0, upstream = 0.0 }

    static func sample() -> Sample {
        var sample = Sample()
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            let seconds = (user + system) / ticks
            sample.total += seconds
            if name.hasPrefix("client") { sample.client += seconds }
            if name.hasPrefix("upstream") { sample.upstream += seconds }
        }
        return sample
    }
}
