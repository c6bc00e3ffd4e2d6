import Foundation
import Testing
import HTTP
import System
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The server on a Unix-domain socket: every loop accepts from it, a peer
/// there has no address, and the file goes at shutdown.
@Suite("HTTP server on a Unix-domain socket")
struct ServerUnixSocketTests {
    @Test func servesOverTheSocketWithoutAPeerAddressAndRemovesTheFile() async throws {
        let path = NSTemporaryDirectory() + "bff-http-\(UUID().uuidString.prefix(8)).sock"
        let server = try await TestServer.start(configure: {
            $0.unixSocket = UnixSocketFile(path: path, mode: 0o600)
            $0.maxConnectionsPerAddress = 1
        }) { request in
            .text("peer \(request.peer.map(String.init(describing:)) ?? "none")")
        }
        #expect(server.server.localAddress == nil)
        #expect(server.server.listenDescription == "unix:\(path)")
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        // More connections than the per-address cap: a socket peer is never counted.
        var clients: [RawClient] = []
        for _ in 0..<4 { clients.append(try RawClient(socketPath: path)) }
        for client in clients {
            await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            let response = await client.readResponses(1).first
            #expect(response?.status == 200)
            #expect(response?.bodyText == "peer none")
        }
        #expect(server.server.stats.refusedConnections.load(ordering: .relaxed) == 0)
        await server.stop()
        #expect(lstat(path, &info) == -1 && errno == ENOENT, "the socket file is gone")
        #expect(throws: SystemError.self) { _ = try RawClient(socketPath: path) }
    }
}
