import Core
import HTTP
import HTTPClient
import Synchronization
import System
import Testing
@testable import Modgud

/// Every call the client makes is reported once, named by its endpoint,
/// with the one outcome its answer or failure means: the counts behind
/// `bff_modgud_calls_total`.
@Suite("Modgud call counting")
struct ModgudCallCountingTests {
    /// A stand-in Modgud on loopback answering every path with `status`, or
    /// with a body past the client's limit, or too late.
    final class Stub: Sendable {
        enum Answer: Sendable {
            case status(Int)
            case oversized
            case late
        }

        /// What the stub answers with, changed by the tests.
        final class Script: Sendable {
            let answer = Mutex(Answer.status(200))
            /// The JSON body of a status answer.
            let body = Mutex(#"{"issuer":"x"}"#)
        }

        let script = Script()
        let group: EventLoopGroup
        let server: HTTPServer

        init() async throws {
            let group = try EventLoopGroup(loops: 1, name: "stub")
            let script = self.script
            server = HTTPServer(configuration: HTTPServerConfiguration(address: SocketAddress(ip: .v4(0x7F00_0001), port: 0)),
                                loops: group.loops) { _ in
                switch script.answer.withLock({ $0 }) {
                case .status(let code):
                    return HTTPResponse(status: HTTPStatus(code), headers: ["Content-Type": "application/json"],
                                        bytes: Array(script.body.withLock { $0 }.utf8))
                case .oversized:
                    return HTTPResponse(status: .ok, bytes: Array(repeating: UInt8(ascii: "a"), count: 4096))
                case .late:
                    try? await Task.sleep(for: .milliseconds(600))
                    return HTTPResponse(status: .ok)
                }
            }
            self.group = group
            try await server.start()
        }

        var base: String { "http://127.0.0.1:\(server.localAddress!.port)" }

        func stop() async {
            await server.shutdown(gracePeriod: .milliseconds(100))
            group.shutdown()
        }
    }

    /// What the observer heard, in order.
    final class Heard: Sendable {
        let calls = Mutex<[(ModgudCall, ModgudCallOutcome)]>([])
        func take() -> [(ModgudCall, ModgudCallOutcome)] { calls.withLock { all in
            defer { all = [] }
            return all
        } }
    }

    static func client(_ base: String, heard: Heard, group: EventLoopGroup) throws -> ModgudClient {
        let http = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .milliseconds(500)), loops: group.loops)
        let configuration = ModgudConfiguration(baseURL: base, clientID: "bff", clientSecret: Secret("bff-secret"),
                                                machineClientID: "machine", machineClientSecret: Secret("machine-secret"),
                                                timeout: .milliseconds(300), maxResponseBytes: 1024)
        return ModgudClient(configuration: configuration, http: http) { call, outcome in
            heard.calls.withLock { $0.append((call, outcome)) }
        }
    }

    /// One call of every kind the gateway makes, with the name it must carry.
    static func everyCall(_ modgud: ModgudClient) -> [(ModgudCall, @Sendable () async -> Void)] {
        let client = IPAddress.v4(0x0A00_0001)
        let token = Secret("access")
        return [
            (.discovery, { _ = await modgud.discover() }),
            (.par, { _ = try? await modgud.pushAuthorization([("client_id", "bff")], forwardedFor: client) }),
            (.jwks, { _ = try? await modgud.keySet() }),
            (.appInfo, { _ = try? await modgud.appInfo() }),
            (.otpRequest, { _ = try? await modgud.postJSON(.otpRequest, modgud.endpoints.otpRequest, body: [:], forwardedFor: client) }),
            (.register, { _ = try? await modgud.postJSON(.register, modgud.endpoints.register, body: [:], forwardedFor: client) }),
            (.magicRequest, { _ = try? await modgud.postJSON(.magicRequest, modgud.endpoints.magicLinkRequest, body: [:],
                                                              forwardedFor: client) }),
            (.passkeyBegin, { _ = try? await modgud.beginPasskey(forwardedFor: client) }),
            (.otpRedeem, { _ = try? await modgud.token(.otp(email: "a@example.com", code: Secret("1"), totpCode: nil), forwardedFor: client) }),
            (.magicRedeem, { _ = try? await modgud.token(.magic(userID: "u", token: Secret("t"), totpCode: nil), forwardedFor: client) }),
            (.passkeyRedeem, { _ = try? await modgud.token(.passkey(ceremonyID: Secret("c"), assertion: "{}"), forwardedFor: client) }),
            (.mfa, { _ = try? await modgud.token(.mfa(grantType: "x", mfaToken: Secret("m"), totpCode: Secret("1")), forwardedFor: client) }),
            (.codeRedeem, { _ = try? await modgud.token(.authorizationCode(code: Secret("c"), verifier: Secret("v"), redirectURI: "https://a/cb"),
                                                        forwardedFor: client) }),
            (.refresh, { _ = try? await modgud.token(.refresh(refreshToken: Secret("r")), forwardedFor: client) }),
            (.clientCredentials, { _ = try? await modgud.clientCredentialsToken(scope: nil, resource: nil) }),
            (.deviceToken, { _ = try? await modgud.token(.deviceCode(Secret("d")), forwardedFor: client) }),
            (.deviceAuthorization, { _ = try? await modgud.deviceAuthorization(forwardedFor: client) }),
            (.revoke, { _ = try? await modgud.revoke(Secret("r"), hint: "refresh_token") }),
            (.userinfo, { _ = try? await modgud.withBearer(.userinfo, .get, modgud.endpoints.userinfo, accessToken: token) }),
            (.passkeyList, { _ = try? await modgud.withBearer(.passkeyList, .get, modgud.endpoints.passkeys, accessToken: token) }),
            (.passkeyEnrollBegin, { _ = try? await modgud.withBearer(.passkeyEnrollBegin, .post, modgud.endpoints.passkeyEnrollBegin,
                                                                      accessToken: token) }),
            (.passkeyEnroll, { _ = try? await modgud.withBearer(.passkeyEnroll, .post, modgud.endpoints.passkeyEnroll, accessToken: token,
                                                                 json: [:]) }),
            (.passkeyDelete, { _ = try? await modgud.withBearer(.passkeyDelete, .delete, modgud.endpoints.passkeys + "/p1",
                                                                 accessToken: token) }),
        ]
    }

    @Test("every kind of call is reported once under its own name")
    func everyCallIsNamed() async throws {
        let stub = try await Stub()
        let heard = Heard()
        let modgud = try Self.client(stub.base, heard: heard, group: stub.group)
        stub.script.body.withLock { $0 = #"{"issuer":"x","pushed_authorization_request_endpoint":"\#(stub.base)/connect/par"}"# }
        // Before discovery advertises a pushed authorization endpoint none is sent, so none is counted.
        #expect(try await modgud.pushAuthorization([("a", "b")], forwardedFor: .v4(0x0A00_0001)) == nil)
        #expect(heard.take().isEmpty)
        let calls = Self.everyCall(modgud)
        for (expected, call) in calls {
            await call()
            let reported = heard.take()
            #expect(reported.map(\.0) == [expected] && reported.map(\.1) == [.ok], "\(expected): \(reported)")
        }
        let named = Set(calls.map(\.0))
        #expect(named == Set(ModgudCall.allCases), "every name is used by a call")
        await stub.stop()
    }

    @Test("each answer and failure has its one outcome", arguments: [
        (Stub.Answer.status(204), ModgudCallOutcome.ok), (.status(302), .ok), (.status(400), .refused), (.status(401), .refused),
        (.status(429), .rateLimited), (.status(500), .error), (.status(503), .error), (.oversized, .badResponse), (.late, .timeout),
    ])
    func outcomes(_ answer: Stub.Answer, _ expected: ModgudCallOutcome) async throws {
        let stub = try await Stub()
        stub.script.answer.withLock { $0 = answer }
        let heard = Heard()
        let modgud = try Self.client(stub.base, heard: heard, group: stub.group)
        _ = try? await modgud.token(.refresh(refreshToken: Secret("r")), forwardedFor: .v4(0x0A00_0001))
        let reported = heard.take()
        #expect(reported.count == 1 && reported.first?.0 == .refresh && reported.first?.1 == expected, "\(reported)")
        await stub.stop()
    }

    @Test("a Modgud nobody listens for is unreachable, once per call")
    func unreachable() async throws {
        let group = try EventLoopGroup(loops: 1, name: "none")
        let heard = Heard()
        // Port 9 (discard) on loopback: nothing listens there on a test machine.
        let modgud = try Self.client("http://127.0.0.1:9", heard: heard, group: group)
        #expect(!(await modgud.discover()))
        await #expect(throws: ModgudFailure.unreachable) { try await modgud.appInfo() }
        let reported = heard.take()
        #expect(reported.map(\.0) == [.discovery, .appInfo] && reported.allSatisfy { $0.1 == .unreachable }, "\(reported)")
        group.shutdown()
    }
}
