import Glibc
@testable import Redis
import Testing
import TestSupport

@Suite("Connections and child processes")
struct InheritanceTests {
    /// The client's sockets are close-on-exec, so a process started
    /// meanwhile (the gateway starts none, its tests do) cannot keep a
    /// closed connection open.
    @Test func aChildProcessDoesNotInheritTheConnection() async throws {
        try await withRedis(loops: 1) { redis in
            let client = redis.makeClient { _ in }
            #expect(await client.waitUntilReady(timeout: .seconds(5)))
            let id = try #require(try await client.send([b("CLIENT"), b("ID")]).integer)
            let child = try ChildProcess.spawn(["/bin/sleep", "30"])
            defer {
                kill(child, SIGKILL)
                ChildProcess.reap(child) {}
            }
            await client.close()
            let gone = await eventually(timeout: .seconds(3)) {
                let list = (try? await redis.client.send([b("CLIENT"), b("LIST")]).text) ?? ""
                return !list.contains("id=\(id) ")
            }
            #expect(gone, "the server still lists the closed connection: the child holds it")
        }
    }
}
