import Configuration
import Core
import Foundation
import HTTP
import ModgudSimulator
import Observability
import Routing
import Sessions
import System
import Testing
import TestSupport
import TokenRefresh
@testable import Gateway

/// A harness with `/api/` proxied (token `user`) to a recording upstream,
/// the gateway's skew at 60 s, the simulator's access tokens at 1 s, and a
/// browser signed in by e-mail code.
struct RefreshFixture {
    let harness: GatewayHarness
    let upstream: RecordingUpstream
    let cookie: String

    static func start(gateway configure: (inout GatewayConfig) -> Void = { _ in },
                      simulator simulate: @Sendable (inout SimulatorConfig) -> Void = { _ in }) async throws -> RefreshFixture {
        let upstream = try await RecordingUpstream.start()
        let harness = try await GatewayHarness.start(gateway: { config in
            config.routes = [RouteConfig(prefix: "/api/", upstream: HTTPURL("http://127.0.0.1:\(upstream.port)/")!, token: .user)]
            config.refreshSkew = .seconds(60)
            configure(&config)
        }, simulator: { sim in
            sim.tokens.accessTokenLifetimeSeconds = 1
            simulate(&sim)
        })
        let browser = harness.browser()
        let signedIn = try await SignInFlowTests.signInWithCode(harness, browser)
        try #require(signedIn.status == 200)
        return RefreshFixture(harness: harness, upstream: upstream, cookie: try #require(browser.cookies["__Host-bff"]))
    }

    func stop() async {
        await harness.stop()
        await upstream.stop()
    }

    /// The access-token lifetime of the tokens Modgud issues from now on.
    func lifetime(_ seconds: Int) {
        harness.simulator.updateConfig { $0.tokens.accessTokenLifetimeSeconds = seconds }
    }

    /// One browser request with the session cookie (on the proxied route by default).
    func get(_ path: String = "/api/items") async throws -> RawResponse {
        try await LoopbackCall.send(port: harness.port, "GET", path, headers: LoopbackCall.browserHeaders(cookie: cookie))
    }

    /// The session as stored in Redis now, or nil when it has ended.
    func session() async throws -> Session? {
        try await harness.service.sessions.load(cookieHeader: "__Host-bff=" + cookie)
    }

    /// The session's tokens as stored in Redis now, or nil when it has ended.
    func tokens() async throws -> SessionTokens? {
        try await session()?.data.tokens
    }

    var modgudPort: UInt16 { harness.relay.localAddress!.port }

    func introspect(_ token: Secret) async throws -> JSON { try await introspect(token.revealed) }

    func introspect(_ token: String) async throws -> JSON { try await ModgudProbe.introspect(port: modgudPort, token) }

    func revokedFamilies() async throws -> Int? { try await ModgudProbe.revokedFamilies(port: modgudPort) }

    /// The session's family was revoked at Modgud (within 10 s: revocation
    /// runs in the background) by the gateway's `/connect/revoke` call
    /// with a refresh token, one family and no more.
    func expectFamilyRevokedByRevocation(since mark: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await revokedFamilies() != 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await revokedFamilies() == 1, "the family is revoked", sourceLocation: sourceLocation)
        let revocations = harness.simulator.requests(since: mark).filter { $0["path"]?.stringValue == "/connect/revoke" }
        #expect(!revocations.isEmpty, "through a revocation", sourceLocation: sourceLocation)
    }

    /// `refresh.outcome_unknown` was logged, and no log line holds a token.
    func expectOutcomeUnknownLogged(hiding tokens: [SessionTokens], sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = harness.logs.lines
        #expect(lines.contains { $0.contains(#""event":"refresh.outcome_unknown""#) }, sourceLocation: sourceLocation)
        let secrets = tokens.flatMap { [$0.accessToken.revealed] + ($0.refreshToken.map { [$0.revealed] } ?? []) }
        for line in lines where secrets.contains(where: { line.contains($0) }) {
            Issue.record("a token in the log: \(line.prefix(80))…", sourceLocation: sourceLocation)
        }
    }

    /// A refresh coordinator of its own on this gateway's Redis, Modgud
    /// client and signals, as another instance has (its own single flight:
    /// it can only wait on the lock), recording into `metrics`.
    func coordinator(_ settings: RefreshCoordinator.Settings, metrics: MetricsRegistry) throws -> RefreshCoordinator {
        let service = harness.service
        return RefreshCoordinator(modgud: try #require(service.modgud), sessions: service.sessions, store: service.refreshStore,
                                  signals: service.refreshSignals,
                                  settings: settings, relay: ModgudRelay(metrics: metrics), metrics: metrics)
    }

    /// A request context for calling a coordinator directly.
    static func context() -> RequestContext {
        RequestContext(requestID: "test", logger: Logger(sink: .capturing(LogCapture())), peer: SocketAddress?.none,
                       routePattern: "/api/", parameters: [:], routeOptions: RouteOptions(), endpoint: RequestContext.notFound)
    }

    /// Waits past the time a failed refresh is answered again without
    /// asking Modgud (`RefreshCoordinator.Settings.failureHold`, 1 s).
    static func waitOutTheFailureHold() async throws {
        try await Task.sleep(for: RefreshCoordinator.Settings().failureHold + .milliseconds(200))
    }

    /// Polls `condition` (what the simulator did on its own time) until it
    /// holds; fails after `timeout`.
    static func waitUntil(timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation,
                          _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension Simulator {
    /// How many times the fault set on `route` has struck, once it has at
    /// least once or `timeout` has passed: a test waits with it until a
    /// delayed answer is under way.
    func faultsStruck(on route: String = "POST /connect/token", within timeout: Duration = .seconds(10)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            let struck = stats()["faults"]?[route]?.intValue ?? 0
            if struck > 0 || ContinuousClock.now >= deadline { return struck }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
