import Configuration
import Core
import HTTP
import Testing
import TestSupport
@testable import Gateway

/// Trace context (Docs/operations.md, "Trace context"): a trusted proxy's
/// `traceparent` is continued, any other request starts a trace; Modgud
/// and every upstream receive the request's trace with a new parent id per
/// call, and the request's log lines carry its trace id.
@Suite("Trace context", .serialized)
struct TraceContextForwardingTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let incoming = "00-\(traceID)-00f067aa0ba902b7-01"
    static let fields = [("traceparent", incoming), ("tracestate", "vendor=secret-ish")]

    /// Every call's trace id and parent id, from its `traceparent`.
    static func parts(_ value: String?) throws -> (trace: String, parent: String) {
        let text = try #require(value, "a traceparent")
        let trace = try #require(TraceContext(traceparent: text), "a valid traceparent")
        return (trace.traceID, String(text.split(separator: "-")[2]))
    }

    /// A sign-in's Modgud call, a GET answered on the loop and a POST
    /// through a worker, all from the same browser with `fields`.
    static func drive(trusted: Bool) async throws -> (modgud: [String?], upstream: [String?], logs: [String]) {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            if trusted { $0.trustedProxies = [CIDR("127.0.0.0/8")!] }
            $0.accessLog = true
            $0.routes = [RouteConfig(prefix: "/open/", upstream: upstream.url("/base/"), token: .none)]
        })
        let browser = harness.browser()
        let mark = harness.modgudRequests().count
        #expect(try await browser.post("/bff/otp/request", ["email": .string(SignInFlowTests.email)], headers: fields).status == 200)
        #expect(try await browser.post("/bff/otp/request", ["email": .string(SignInFlowTests.email)], headers: fields).status == 200)
        #expect(try await browser.get("/open/echo", headers: fields).status == 200)
        #expect(try await browser.post("/open/echo", .object([:]), headers: fields).status == 200)
        let modgud = harness.modgudRequests(since: mark).filter { $0["path"]?.stringValue == "/api/account/native/otp/request" }
            .map { $0["traceparent"]?.stringValue }
        let seen = upstream.requests
        #expect(seen.allSatisfy { $0.values("tracestate").isEmpty }, "tracestate is not passed on")
        #expect(seen.allSatisfy { $0.values("traceparent").count == 1 })
        let logs = harness.logs.lines
        await harness.stop()
        await upstream.stop()
        return (modgud, seen.map { $0.header("traceparent") }, logs)
    }

    @Test func aTrustedProxysTraceReachesModgudTheUpstreamAndTheLogs() async throws {
        let (modgud, upstream, logs) = try await Self.drive(trusted: true)
        #expect(modgud.count == 2 && upstream.count == 2)
        let calls = try (modgud + upstream).map(Self.parts)
        #expect(calls.allSatisfy { $0.trace == Self.traceID })
        let parents = calls.map(\.parent)
        #expect(Set(parents).count == parents.count, "a new parent id per call")
        #expect(!parents.contains("00f067aa0ba902b7"), "the proxy's span is the gateway's parent, not its calls'")
        let access = logs.filter { $0.contains("\"http.access\"") }
        #expect(access.count == 4)
        #expect(access.allSatisfy { $0.contains("\"traceId\":\"\(Self.traceID)\"") })
    }

    @Test func aClientsOwnTraceIsReplaced() async throws {
        let (modgud, upstream, logs) = try await Self.drive(trusted: false)
        #expect(modgud.count == 2 && upstream.count == 2)
        let calls = try (modgud + upstream).map(Self.parts)
        #expect(!calls.contains { $0.trace == Self.traceID })
        #expect(Set(calls.map(\.trace)).count == 4, "each request starts its own trace")
        let access = logs.filter { $0.contains("\"http.access\"") }
        for call in calls {
            #expect(access.filter { $0.contains("\"traceId\":\"\(call.trace)\"") }.count == 1, "the access line names the trace")
        }
    }
}
