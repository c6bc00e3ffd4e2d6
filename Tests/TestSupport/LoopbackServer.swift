import Core
import HTTP
import System

/// A real `HTTPServer` on a loopback port with its own loops, for one test.
/// Each test target wraps `launch` in a `start` with its own defaults.
public struct LoopbackServer: Sendable {
    public let group: EventLoopGroup
    public let server: HTTPServer

    public var port: UInt16 { server.localAddress!.port }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public static func launch(loops: Int, name: String, configure: (inout HTTPServerConfiguration) -> Void,
                              immediate: HTTPImmediateResponder? = nil,
                              responder: @escaping HTTPResponder) async throws -> LoopbackServer {
        let group = try EventLoopGroup(loops: loops, name: name)
        var configuration = HTTPServerConfiguration(address: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0))
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, loops: group.loops, responder: responder, immediate: immediate)
        try await server.start()
        return LoopbackServer(group: group, server: server)
    }

    public func stop() async {
        await server.shutdown(gracePeriod: .milliseconds(200))
        group.shutdown()
    }

    /// A raw client connected to the server.
    public func client() throws -> RawClient { try RawClient(port: port) }
}
