import Core
import HTTP
import System
import TestSupport

/// A real server on a loopback port with its own loops, for one test.
struct TestServer {
    let group: EventLoopGroup
    let server: HTTPServer

    var port: UInt16 { server.localAddress!.port }

    static func start(loops: Int = 2, configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                      responder: @escaping HTTPResponder) async throws -> TestServer {
        let group = try EventLoopGroup(loops: loops, name: "test")
        var configuration = HTTPServerConfiguration(address: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0))
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, loops: group.loops, responder: responder)
        try await server.start()
        return TestServer(group: group, server: server)
    }

    func stop() async {
        await server.shutdown(gracePeriod: .milliseconds(200))
        group.shutdown()
    }

    func client() throws -> RawClient { try RawClient(port: port) }
}

extension HTTPResponse {
    static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain"], bytes: Array(text.utf8))
    }
}
