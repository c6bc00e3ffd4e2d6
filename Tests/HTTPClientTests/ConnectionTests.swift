import HTTP
import HTTPClient
import System
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ConnectionTests {
    @Test func sequentialRequestsReuseOneConnection() async throws {
        let upstream = try await Upstream.start()
        try await withClient(loops: 1) { client, _ in
            for i in 0..<20 {
                let response = try await client.execute(HTTPClientRequest(
                    method: i % 2 == 0 ? .get : .post, url: upstream.url("/echo/\(i)"), body: i % 2 == 0 ? nil : [1, 2, 3]))
                #expect(response.status == .ok)
            }
            #expect(upstream.server.stats.acceptedConnections.load(ordering: .relaxed) == 1)
            #expect(upstream.server.stats.requests.load(ordering: .relaxed) == 20)
        }
        await upstream.stop()
    }

    @Test func requestsFromALoopTaskStayOnThatLoopsConnections() async throws {
        let upstream = try await Upstream.start()
        try await withClient(loops: 2) { client, group in
            // Every request from a task on loop 1 uses loop 1's multi handle,
            // so one connection serves them all.
            let statuses = await Task(executorPreference: group.loops[1]) { () -> [Int] in
                var statuses: [Int] = []
                for _ in 0..<10 {
                    let onLoop = group.loops[1].inLoop
                    let response = try? await client.execute(HTTPClientRequest(url: upstream.url("/echo")))
                    statuses.append(onLoop ? response?.status.code ?? 0 : -1)
                }
                return statuses
            }.value
            #expect(statuses == Array(repeating: 200, count: 10))
            #expect(upstream.server.stats.acceptedConnections.load(ordering: .relaxed) == 1)
        }
        await upstream.stop()
    }

    @Test func twoHundredConcurrentRequestsAcrossTwoLoops() async throws {
        let upstream = try await Upstream.start(loops: 2)
        try await withClient(loops: 2) { client, _ in
            let results = await withTaskGroup(of: (Int, String?).self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let response = try? await client.execute(HTTPClientRequest(
                            method: .post, url: upstream.url("/echo/\(i)"), body: Array("n=\(i)".utf8)))
                        return (i, response?.text)
                    }
                }
                var results: [Int: String] = [:]
                for await (i, text) in group { results[i] = text ?? "" }
                return results
            }
            #expect(results.count == 200)
            for i in 0..<200 {
                #expect(results[i]?.hasPrefix("POST /echo/\(i)\n") == true)
                #expect(results[i]?.hasSuffix("\n\nn=\(i)") == true)
            }
            #expect(client.stats.activeTransfers.load(ordering: .relaxed) == 0)
            #expect(client.stats.failures.load(ordering: .relaxed) == 0)
        }
        await upstream.stop()
    }

    /// Connections are opened close-on-exec (libcurl does not ask for it):
    /// a child process started while one is pooled does not keep it open
    /// after the client has closed it.
    @Test func aChildProcessDoesNotInheritPooledConnections() async throws {
        let upstream = try await Upstream.start()
        try await withClient(loops: 1) { client, _ in
            #expect(try await client.execute(HTTPClientRequest(url: upstream.url("/echo"))).status == .ok)
            #expect(upstream.server.stats.openConnections.load(ordering: .relaxed) == 1)
            let child = try ChildProcess.spawn(["/bin/sleep", "30"])
            defer {
                kill(child, SIGKILL)
                ChildProcess.reap(child) {}
            }
            await client.shutdown()
            for _ in 0..<150 where upstream.server.stats.openConnections.load(ordering: .relaxed) > 0 {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(upstream.server.stats.openConnections.load(ordering: .relaxed) == 0,
                    "the upstream still holds the connection: the child inherited it")
        }
        await upstream.stop()
    }

    @Test func connectionLimitPerHostQueuesRequests() async throws {
        let upstream = try await Upstream.start()
        var configuration = HTTPClientConfiguration()
        configuration.maxConnectionsPerHost = 2
        try await withClient(loops: 1, configuration: configuration) { client, _ in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await client.execute(HTTPClientRequest(url: upstream.url("/sleep/50"))).status.code }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(upstream.server.stats.acceptedConnections.load(ordering: .relaxed) <= 2)
        }
        await upstream.stop()
    }
}
