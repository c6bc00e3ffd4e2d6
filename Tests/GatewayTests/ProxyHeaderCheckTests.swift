import Configuration
import Core
import HTTP
import HTTPClient
import Sessions
import System
import Testing
@testable import Gateway

/// The proxy marks the fields it adds as checked only when their values
/// are clean, so the client skips checking them: a token that is not a
/// clean field value must still be refused before anything is sent.
@Suite("Proxy header checks")
struct ProxyHeaderCheckTests {
    @Test func theGatewaysFieldsAreMarkedCheckedOnlyWhenClean() async throws {
        let group = try EventLoopGroup(loops: 1)
        let http = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .milliseconds(500)), loops: group.loops)
        let sessions = SessionManager(store: MemorySessionStore(clock: ContinuousClock(), unixClock: SystemUnixClock()))
        let proxy = APIProxy(upstreams: http, sessions: sessions, refresher: nil, clientTokens: nil,
                             addresses: ClientAddressResolver(trustedProxies: []),
                             publicOrigin: try #require(WebOrigin("https://app.example.com:8443")), timeout: .seconds(1),
                             defaultMaxBodyBytes: 10 << 20)
        // As parsed: the parser marks every field checked.
        var incoming = HTTPHeaders()
        for (name, value) in [("Accept", "application/json"), ("Cookie", "__Host-bff=x")] {
            name.withContiguousUTF8 { name in value.withContiguousUTF8 { incoming.add(checkedName: name, value: $0) } }
        }
        let client = IPAddress.v4(0x0A00_0001)

        let trace = TraceContext(high: 1, low: 2)
        let clean = proxy.upstreamHeaders(incoming, token: Secret("eyJ.abc-_~+/="), client: client, trace: trace)
        #expect(clean.fields.map(\.name) == ["Accept", "Authorization", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host",
                                             "traceparent"])
        #expect(clean["X-Forwarded-Host"] == "app.example.com:8443")
        #expect((0..<clean.count).allSatisfy(clean.isChecked), "the parsed field stays checked, the added ones are clean")

        let smuggling = proxy.upstreamHeaders(incoming, token: Secret("t\r\nX-Injected: 1"), client: client, trace: trace)
        let authorization = try #require(smuggling.firstIndex(named: "Authorization"))
        #expect(!smuggling.isChecked(at: authorization))
        // So the client checks it, and refuses the request unsent.
        let request = HTTPClientRequest(base: HTTPClientBase("http://127.0.0.1:9/"), appending: "items", headers: smuggling)
        await #expect(throws: HTTPClientError.invalidRequest) { _ = try await http.stream(request, body: nil) }
        await http.shutdown()
        group.shutdown()
    }
}
