import Core
import HTTP
import Observability
import Synchronization
import System
import Testing
@testable import Routing

/// A request's trace (`Application.trace(of:id:)`): a trusted peer's
/// valid `traceparent` is continued, anything else starts a trace; either
/// way the request's log lines and its task carry the trace.
@Suite("Request trace")
struct RequestTraceTests {
    static let incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    static let proxy = SocketAddress(ip: .v4(0x0A00_0001), port: 40_000)
    static let client = SocketAddress(ip: .v4(0xC633_6417), port: 40_000)

    /// What one request saw: its context's trace and the task's.
    final class Seen: Sendable {
        let traces = Mutex<[(context: TraceContext, task: TraceContext?)]>([])
    }

    static func app(_ seen: Seen, logs: LogCapture) -> Application {
        var router = RouterBuilder()
        router.add(.get, "/task") { _, context in
            seen.traces.withLock { $0.append((context.trace, TraceContext.current)) }
            context.logger.info("test.event")
            return HTTPResponse(status: .ok)
        }
        return Application(router: router.build(), middlewares: [ErrorMiddleware()], logger: Logger(sink: .capturing(logs)),
                           tracePeers: { $0?.ip == proxy.ip })
    }

    static func request(from peer: SocketAddress, _ fields: [String]) -> HTTPRequest {
        var headers = HTTPHeaders()
        for field in fields { headers.add("traceparent", field) }
        return HTTPRequest(head: HTTPRequestHead(method: .get, target: "/task", headers: headers), peer: peer)
    }

    /// Serves `fields` from `peer`; the context's trace, after checking
    /// that the task and the log line carry the same.
    static func served(from peer: SocketAddress, _ fields: [String]) async throws -> TraceContext {
        let (seen, logs) = (Seen(), LogCapture())
        #expect(await app(seen, logs: logs).respond(request(from: peer, fields)).status == .ok)
        let (trace, task) = try #require(seen.traces.withLock { $0.first })
        #expect(task == trace, "the responder's task carries the request's trace")
        let line = try #require(logs.lines.first { $0.contains("\"test.event\"") })
        #expect(line.contains("\"requestId\":") && line.contains("\"traceId\":\"\(trace.traceID)\""))
        return trace
    }

    @Test func aTrustedProxysTraceIsContinued() async throws {
        let trace = try await Self.served(from: Self.proxy, [Self.incoming])
        #expect(trace.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(trace.parent == 0x00F0_67AA_0BA9_02B7 && trace.flags == 1)
    }

    @Test func aClientsOwnTraceIsIgnored() async throws {
        let trace = try await Self.served(from: Self.client, [Self.incoming])
        #expect(trace.traceID != "4bf92f3577b34da6a3ce929d0e0e4736" && !trace.isContinued)
    }

    @Test(arguments: [
        ["00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"],
        ["01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
        ["00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"],
        [incoming, "00-11111111111111111111111111111111-00f067aa0ba902b7-01"],
    ])
    func aMalformedOrDoubledTraceIsReplaced(_ fields: [String]) async throws {
        let trace = try await Self.served(from: Self.proxy, fields)
        #expect(!trace.isContinued)
        #expect(trace.traceID != "4bf92f3577b34da6a3ce929d0e0e4736" && trace.traceID != String(repeating: "1", count: 32))
    }

    @Test func eachRequestStartsItsOwnTrace() async throws {
        let first = try await Self.served(from: Self.client, [])
        let second = try await Self.served(from: Self.client, [])
        #expect(first.traceID != second.traceID)
    }
}
