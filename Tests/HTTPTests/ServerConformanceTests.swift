import Testing
import HTTP
import System
import TestSupport

/// The parser's conformance tables again, this time over real loopback
/// sockets through the whole server: every refusal comes back with its
/// status and a closed connection, and every good request reaches the
/// handler with its method, target and body intact.
@Suite("Parser conformance over sockets")
struct ServerConformanceTests {
    @Test(arguments: RequestParserCases.allBad)
    func refusal(_ bad: ParserBadCase) async throws {
        let server = try await TestServer.start(loops: 1, configure: { $0.parserLimits = bad.limits }) { _ in
            .text("handler ran")
        }
        let client = try server.client()
        await client.send(bad.raw)
        let responses = await client.readResponses(2)
        #expect(responses.last?.status == bad.status, "\(bad.name)")
        #expect(responses.last?.header("Connection") == "close")
        #expect(!responses.contains { $0.bodyText == "handler ran" && $0.status == 200 && bad.status >= 400 && responses.count == 1 })
        #expect(await client.isClosedByPeer())
        await server.stop()
    }

    @Test(arguments: RequestParserCases.good)
    func goodRequest(_ good: ParserGoodCase) async throws {
        let server = try await TestServer.start(loops: 1) { request in
            let body = (try? await request.body.collect(upTo: 1 << 20)) ?? Array("body failed".utf8)
            var headers = HTTPHeaders()
            headers.add("X-Method", request.method.rawValue)
            headers.add("X-Target", request.head.target)
            return HTTPResponse(status: .ok, headers: headers, bytes: body)
        }
        let client = try server.client()
        await client.send(good.raw)
        var response = await client.readResponses(1).first
        if response?.status == 100 { response = await client.readResponses(1).first }
        #expect(response?.status == 200, "\(good.name)")
        #expect(response?.header("X-Method") == good.head.method.rawValue)
        #expect(response?.header("X-Target") == good.head.target)
        #expect(response?.body == good.body)
        await server.stop()
    }
}
