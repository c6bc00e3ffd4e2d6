import Foundation
import Testing
import HTTP
import System
import TestSupport

/// What the loop thread costs while it waits: measured in CPU time over
/// real time, so in the serial pass.
@Suite("HTTP server: the loop's CPU while a request waits")
struct ServerLoopCPUTests {
    /// A client that half-closes while its request is in flight and reading
    /// is paused (pipelined bytes piled up): the loop must not spin on the
    /// hang-up event until the answer is ready.
    @Test func aHalfClosedClientDoesNotSpinTheLoop() async throws {
        let server = try await LoopbackServer.launch(loops: 1, name: "spin-probe", configure: { _ in }) { _ in
            try? await Task.sleep(for: .seconds(1))
            return .text("slow")
        }
        let client = try server.client()
        await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n" + String(repeating: "x", count: 17 * 1024))
        try await Task.sleep(for: .milliseconds(100))   // read and paused
        client.shutdownWrite()
        let before = Self.threadCPU(named: "spin-probe")
        try await Task.sleep(for: .milliseconds(800))
        let used = Self.threadCPU(named: "spin-probe") - before
        #expect(used < 0.2, "the loop thread's CPU seconds while the handler slept: \(used)")
        #expect(await client.readResponses(1).first?.bodyText == "slow", "the answer still arrives")
        await server.stop()
    }

    /// CPU seconds (user + system) of this process's threads named `name`.
    static func threadCPU(named name: String) -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var ticks = 0
        for task in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.hasPrefix(name), let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // Fields after the name: state is the 3rd field, utime the 14th, stime the 15th.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            ticks += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
