import Testing
import Foundation
import Configuration
import Core
import HTTP
import HTTPClient
import ModgudSimulator
import System
import TestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import Gateway

/// Deploy/nginx/modgud-bff.conf used for real: nginx (started from the
/// repository's file, only its ports, paths and certificates rewritten)
/// terminates TLS in front of an in-process gateway (real Redis, the Modgud
/// simulator, an echo upstream API) on its Unix socket, or over TCP with
/// the file's `proxy_bind 127.0.0.2` variant, and a TLS client that trusts
/// only this run's self-signed certificate talks to nginx. Every test
/// asserts what the client got through nginx and what Modgud or the upstream
/// got behind it. The client always sends an `X-Forwarded-For` of its own;
/// the address that arrives is its real one, 127.0.0.1. nginx missing is a
/// failure, not a skip (`Deploy/local/ensure-packages.sh test` installs
/// nginx-light).
@Suite("nginx in front (Deploy/nginx/modgud-bff.conf)", .serialized)
struct NginxFrontTests {
    static let email = "ada@example.com"
    /// What the browser's own X-Forwarded-For says; nginx appends 127.0.0.1.
    static let spoofedAddress = "6.6.6.6"
    /// The browser's real address, which nginx appends.
    static let browserAddress = "127.0.0.1"

    /// A client's own `X-Forwarded-For` and `Forwarded` never become its
    /// address, whichever way nginx reaches the gateway: Modgud and the
    /// upstream get 127.0.0.1, and nginx logs the gateway's request id.
    @Test(arguments: NginxWay.allCases)
    func aClientsOwnForwardedHeaderNeverBecomesItsAddress(way: NginxWay) async throws {
        let chain = try await NginxChain.start(way)
        try await chain.run {
            let requested = try await chain.call(.post, "/bff/otp/request", json: ["email": .string(Self.email)],
                                                 headers: [("Forwarded", "for=\(Self.spoofedAddress)")])
            #expect(requested.status.code == 200)
            let code = try #require(chain.harness.simulator.mail(to: Self.email).first?.code, "the e-mailed code")
            let redeemed = try await chain.call(.post, "/bff/otp/redeem", json: ["email": .string(Self.email), "code": .string(code)])
            #expect(redeemed.status.code == 200)
            let calls = chain.harness.modgudRequests()
            let forwarded = Set(calls.compactMap { $0["forwardedFor"]?.stringValue })
            #expect(forwarded == [Self.browserAddress], "Modgud-Forwarded-For of every call: \(forwarded)")

            let cookie = try #require(chain.sessionCookie(redeemed))
            let answer = try await chain.call(.get, "/api/echo", headers: [("Cookie", cookie), ("Forwarded", "for=6.6.6.6")])
            #expect(answer.status.code == 200)
            let seen = try #require(chain.upstream.requests.last)
            #expect(seen.values("X-Forwarded-For") == [Self.browserAddress])
            #expect(!seen.headers.contains { $0.value.contains(Self.spoofedAddress) }, "6.6.6.6 never reaches the upstream")
            // nginx's keep-alive connections come from the socket or from
            // 127.0.0.2: none is counted as a client's (127.0.0.1's) own.
            let server = chain.harness.service.publicServer
            #expect(server.stats.openConnections.load(ordering: .relaxed) > 0, "nginx keeps its connections open")
            #expect(server.addressCounts.addresses == 0)

            let requestID = try #require(answer.headers["X-Request-Id"])
            let access = await chain.nginx.accessLog(awaiting: "request_id=\(requestID)")
            #expect(access.contains("request_id=\(requestID)"), "the gateway's request id in nginx's log:\n\(access)")
        }
    }

    @Test func staticFrontEndIsServedByNginx() async throws {
        let chain = try await NginxChain.start()
        try await chain.run {
            let index = try await chain.call(.get, "/index.html")
            #expect(index.status.code == 200)
            #expect(String(decoding: index.body, as: UTF8.self) == chain.nginx.indexHTML)
            #expect(index.headers["Cache-Control"] == "no-cache")
            #expect(index.headers["X-Content-Type-Options"] == "nosniff")
            #expect(index.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(index.headers["Server"] == "nginx")

            let root = try await chain.call(.get, "/")
            #expect(root.status.code == 200)
            #expect(String(decoding: root.body, as: UTF8.self) == chain.nginx.indexHTML)
            let route = try await chain.call(.get, "/orders/42")
            #expect(route.status.code == 200, "a client-side route")
            #expect(String(decoding: route.body, as: UTF8.self) == chain.nginx.indexHTML)

            #expect(chain.upstream.count == 0, "static files never reach the gateway's routes")
            let accountCalls = chain.harness.modgudRequests().filter { ($0["path"]?.stringValue ?? "").hasPrefix("/api/") }
            #expect(accountCalls.isEmpty)
        }
    }

    @Test func signInThroughNginxForwardsTheBrowsersAddressAndSetsTheHostCookie() async throws {
        let chain = try await NginxChain.start()
        try await chain.run {
            let redeemed = try await chain.signIn(email: Self.email)
            #expect(redeemed.status.code == 200)
            #expect(redeemed.headers["Server"] == "nginx", "answered through nginx (server_tokens off)")
            let json = try JSON.parse(redeemed.body)
            #expect(json["user"]?["email"]?.stringValue == Self.email)

            // What Modgud got: the browser's address as nginx appended it to
            // the browser's own X-Forwarded-For (`6.6.6.6, 127.0.0.1`).
            let calls = chain.harness.modgudRequests()
            for path in ["/api/account/native/otp/request", "/connect/token"] {
                let call = try #require(calls.first { $0["path"]?.stringValue == path }, "\(path) was called")
                #expect(call["forwardedFor"]?.stringValue == Self.browserAddress, "\(path)")
                #expect(call["clientAuth"]?.stringValue == "basic", "\(path)")
            }
            #expect(calls.filter { $0["path"]?.stringValue == "/api/account/native/otp/request" }.count == 1)
            #expect(calls.filter { $0["path"]?.stringValue == "/connect/token" }.count == 1, "nothing retried")

            // The session cookie as nginx delivered it.
            let setCookies = redeemed.headers.values("Set-Cookie")
            let session = try #require(setCookies.first { $0.hasPrefix("__Host-bff=") }, "\(setCookies)")
            let attributes = session.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(attributes.contains("Secure"))
            #expect(attributes.contains("HttpOnly"))
            #expect(attributes.contains("SameSite=Strict"))
            #expect(attributes.contains("Path=/"))
            #expect(!attributes.contains { $0.lowercased().hasPrefix("domain=") }, "__Host- cookies carry no Domain")

            let cookie = try #require(chain.sessionCookie(redeemed))
            let user = try await chain.call(.get, "/bff/user", headers: [("Cookie", cookie)])
            #expect(user.status.code == 200)
            #expect((try? JSON.parse(user.body))?["user"]?["email"]?.stringValue == Self.email)
            let anonymous = try await chain.call(.get, "/bff/user")
            #expect(anonymous.status.code == 401)

            // The CSRF check still sees the browser's Origin through nginx.
            let foreign = try await chain.call(.post, "/bff/otp/request", json: ["email": .string(Self.email)],
                                               headers: [("Origin", "https://evil.example")])
            #expect(foreign.status.code == 403)
            let access = await chain.nginx.accessLog(awaiting: #""POST /bff/otp/request HTTP/1.1" 403"#)
            #expect(access.contains(#""POST /bff/otp/request HTTP/1.1" 200"#), "nginx logged the sign-in:\n\(access)")
            #expect(access.contains(#""POST /bff/otp/redeem HTTP/1.1" 200"#))
            #expect(access.contains(#""POST /bff/otp/request HTTP/1.1" 403"#))
        }
    }

    @Test func modgud429ReachesTheClientThroughNginxUnchanged() async throws {
        // Two e-mail code requests per browser address per hour.
        let chain = try await NginxChain.start(simulator: { sim in
            sim.rateLimits.policies[RateLimitPolicyName.nativeOtp]?.rules[.source] = RateLimitRule(limit: 2, windowSeconds: 3600)
            sim.responses.rateLimitHeaders = true
        })
        try await chain.run {
            let address = "198.51.100.7"
            var answers: [HTTPClientResponse] = []
            for n in 0..<3 {
                answers.append(try await chain.call(.post, "/bff/otp/request", json: ["email": .string("user\(n)@example.com")],
                                                    forwardedFor: address))
            }
            #expect(answers.map(\.status.code) == [200, 200, 429])
            let servers = answers.map { $0.headers["Server"] }
            #expect(servers == ["nginx", "nginx", "nginx"], "answered through nginx")
            let limitedLine = #""POST /bff/otp/request HTTP/1.1" 429"#
            #expect(await chain.nginx.accessLog(awaiting: limitedLine).contains(limitedLine))
            let otpCalls = chain.harness.modgudRequests().filter { $0["path"]?.stringValue == "/api/account/native/otp/request" }
            #expect(otpCalls.count == 3, "exactly one call to Modgud per client call: nginx and the gateway never retry a 429")
            #expect(otpCalls.allSatisfy { $0["forwardedFor"]?.stringValue == Self.browserAddress },
                    "the browser's real address, never the \(address) it wrote")

            let limited = try #require(answers.last)
            let modgudAnswers = chain.harness.answers.all.filter { $0.status.code == 429 }
            #expect(modgudAnswers.count == 1)
            let modgud = try #require(modgudAnswers.last)
            guard case .bytes(let modgudBody) = modgud.body else {
                Issue.record("the simulator's 429 has no byte body")
                return
            }
            #expect(limited.status == modgud.status)
            #expect(limited.body == modgudBody, "the body byte for byte")
            let retryAfter = try #require(modgud.headers["Retry-After"])
            #expect(limited.headers["Retry-After"] == retryAfter)
            let numeric = retryAfter.allSatisfy(\.isNumber)
            #expect(numeric, "Retry-After in seconds")
            let rateLimitFields = modgud.headers.filter { $0.name.lowercased().hasPrefix("ratelimit") }
            #expect(!rateLimitFields.isEmpty, "the simulator sent RateLimit-* fields")
            for field in rateLimitFields {
                #expect(limited.headers[field.name] == field.value, "\(field.name)")
            }
            #expect(limited.headers["Content-Type"] == modgud.headers["Content-Type"])
            let body = try JSON.parse(limited.body)
            #expect(body["error"]?.stringValue == "rate_limited")
            #expect(body["dimension"]?.stringValue == "source", "the dimension of the browser's own address")
            #expect(body["retryAfterSeconds"]?.intValue.map(String.init) == retryAfter)

            // Another address in its own header buys the browser no new bucket.
            let other = try await chain.call(.post, "/bff/otp/request", json: ["email": "user9@example.com"],
                                             forwardedFor: "198.51.100.8")
            #expect(other.status.code == 429)
        }
    }

    @Test func proxiedAPICallThroughNginxCarriesTheTokenAndTheBrowsersAddress() async throws {
        let chain = try await NginxChain.start()
        try await chain.run {
            let redeemed = try await chain.signIn(email: Self.email)
            #expect(redeemed.status.code == 200)
            let cookie = try #require(chain.sessionCookie(redeemed))

            let answer = try await chain.call(.get, "/api/echo?x=1", headers: [("Cookie", cookie)],
                                              forwardedFor: Self.spoofedAddress)
            #expect(answer.status.code == 200)
            #expect(answer.headers["X-Upstream"] == "echo")
            #expect(answer.headers["Server"] == "nginx", "answered through nginx")
            let seen = try #require(chain.upstream.requests.last)
            #expect(seen.target == "/base/echo?x=1")
            let token = try #require(seen.bearer, "the upstream got a Bearer token")
            #expect(ProxyTests.issuedAccessTokens(chain.harness).first == token, "the access token Modgud issued at sign-in")
            #expect(seen.values("X-Forwarded-For") == [Self.browserAddress], "the browser's address as the gateway resolved it")
            #expect(seen.values("X-Forwarded-Proto") == ["https"])
            #expect(seen.header("X-Forwarded-Host") == "localhost:\(chain.nginx.port)")
            #expect(seen.header("Cookie") == nil, "the browser's cookies stay at the gateway")
            #expect(!seen.headers.contains { $0.value.contains(cookie.dropFirst("__Host-bff=".count)) })

            // A body streamed through both (proxy_request_buffering off).
            let payload = JSON.object(["note": .string(String(repeating: "n", count: 5000))])
            let posted = try await chain.call(.post, "/api/echo", json: payload, headers: [("Cookie", cookie)],
                                              forwardedFor: Self.spoofedAddress)
            #expect(posted.status.code == 200)
            let echoed = try #require(chain.upstream.requests.last)
            #expect(echoed.method == "POST")
            #expect(echoed.body == payload.serialized)
            #expect(echoed.bearer == token)
            #expect(echoed.values("X-Forwarded-For") == [Self.browserAddress])
            #expect(echoed.header("Cookie") == nil)

            let anonymous = try await chain.call(.get, "/api/echo", forwardedFor: Self.spoofedAddress)
            #expect(anonymous.status.code == 401, "no session, no call upstream")
            #expect(chain.upstream.count == 2)
        }
    }
}

/// The two ways the shipped file lets nginx reach the gateway.
enum NginxWay: String, CaseIterable, Sendable {
    /// The gateway on a Unix socket, BFF_TRUSTED_PROXIES empty.
    case socket
    /// The gateway on 127.0.0.1, nginx connecting from 127.0.0.2, the only
    /// trusted address.
    case proxyBind
}

/// The whole chain for one test: echo upstream, the harness (gateway on a
/// Unix socket, or on TCP trusting 127.0.0.2 only; public origin = nginx's
/// https origin, `/api/` routed to the upstream), nginx in front, and a TLS
/// client trusting only the run's certificate.
struct NginxChain {
    let upstream: EchoUpstream
    let harness: GatewayHarness
    let nginx: NginxFront
    let group: EventLoopGroup
    let client: HTTPClient

    var origin: String { nginx.origin }

    static func start(_ way: NginxWay = .socket,
                      simulator simulate: @Sendable (inout SimulatorConfig) -> Void = { _ in }) async throws -> NginxChain {
        let upstream = try await EchoUpstream.start()
        let socket = NSTemporaryDirectory() + "modgud-bff-\(UUID().uuidString.prefix(8)).sock"
        let port: UInt16
        let harness: GatewayHarness
        do {
            port = try NginxFront.reservePort()
            let origin = try #require(WebOrigin("https://localhost:\(port)"), "an https origin on localhost with a port")
            let route = RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user)
            harness = try await GatewayHarness.start(gateway: { config in
                switch way {
                case .socket:
                    config.listen = ListenAddress(socketPath: socket)
                    // nginx's workers run as www-data when the tests run as root.
                    config.listenGroup = getuid() == 0 ? "www-data" : nil
                case .proxyBind:
                    config.trustedProxies = [CIDR("127.0.0.2/32")!]
                }
                config.publicOrigin = origin
                config.routes = [route]
            }, simulator: simulate)
        } catch {
            await upstream.stop()
            throw error
        }
        let nginx: NginxFront
        do {
            nginx = try await NginxFront.start(port: port, gateway: way == .socket ? .socket(socket) : .proxyBind(port: harness.port))
        } catch {
            await harness.stop()
            await upstream.stop()
            throw error
        }
        do {
            let group = try EventLoopGroup(loops: 1, name: "nginx-client")
            let client = try HTTPClient(configuration: HTTPClientConfiguration(timeout: .seconds(15), caFile: nginx.certificate),
                                        loops: group.loops)
            return NginxChain(upstream: upstream, harness: harness, nginx: nginx, group: group, client: client)
        } catch {
            await nginx.stop()
            await harness.stop()
            await upstream.stop()
            throw error
        }
    }

    /// Runs `body`, then stops everything (also when `body` throws); nginx's
    /// error log is attached to a failure.
    func run(_ body: () async throws -> Void) async throws {
        var failure: (any Error)?
        do {
            try await body()
        } catch {
            failure = error
        }
        await stop()
        if let failure {
            Issue.record("nginx's log:\n\(nginx.log)")
            throw failure
        }
        nginx.removeFiles()
    }

    func stop() async {
        await client.shutdown()
        group.shutdown()
        await nginx.stop()
        await harness.stop()
        await upstream.stop()
    }

    /// One request over TLS to `https://localhost:<nginx port><path>` with
    /// `X-CSRF: 1`, the public `Origin` (unless `headers` names another) and
    /// the browser's own `X-Forwarded-For`.
    func call(_ method: HTTPMethod, _ path: String, json: JSON? = nil, headers extra: [(String, String)] = [],
              forwardedFor: String? = NginxFrontTests.spoofedAddress) async throws -> HTTPClientResponse {
        var headers = HTTPHeaders()
        headers.add("X-CSRF", "1")
        if !extra.contains(where: { $0.0.lowercased() == "origin" }) { headers.add("Origin", origin) }
        if let forwardedFor { headers.add("X-Forwarded-For", forwardedFor) }
        if json != nil { headers.add("Content-Type", "application/json") }
        for (name, value) in extra { headers.add(name, value) }
        return try await client.execute(HTTPClientRequest(method: method, url: "https://localhost:\(nginx.port)\(path)",
                                                          headers: headers, body: json?.serialized))
    }

    /// The e-mail code sign-in through nginx; the redeem answer.
    func signIn(email: String) async throws -> HTTPClientResponse {
        let requested = try await call(.post, "/bff/otp/request", json: ["email": .string(email)])
        #expect(requested.status.code == 200)
        let code = try #require(harness.simulator.mail(to: email).first?.code, "the e-mailed code")
        return try await call(.post, "/bff/otp/redeem", json: ["email": .string(email), "code": .string(code)])
    }

    /// `__Host-bff=<value>` from a response's Set-Cookie, as a Cookie header value.
    func sessionCookie(_ response: HTTPClientResponse) -> String? {
        response.headers.values("Set-Cookie").first { $0.hasPrefix("__Host-bff=") }
            .map { String($0.split(separator: ";")[0]) }
    }
}
