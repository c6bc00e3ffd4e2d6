import Core
import HTTP
import Synchronization
import System

/// A client's back-channel logout endpoint on loopback: keeps every
/// `logout_token` it is sent and answers with the statuses it is given
/// (then 200).
final class LogoutReceiver: Sendable {
    /// What the server's handler shares with the test.
    private final class Book: Sendable {
        let received = Mutex<[String]>([])
        let answers: Mutex<[Int]>
        init(_ answers: [Int]) { self.answers = Mutex(answers) }
    }

    private let server: HTTPServer
    private let book: Book

    init(loops: [EventLoop], answers: [Int] = []) async throws {
        let book = Book(answers)
        self.book = book
        server = HTTPServer(configuration: HTTPServerConfiguration(address: SocketAddress(ip: .v4(0x7F00_0001), port: 0)),
                            loops: loops) { request in
            let body = (try? await request.body.collect(upTo: 64 * 1024)) ?? []
            let token = FormURLEncoded.parse(body)?.first("logout_token")
            let isForm = request.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true
            if let token, isForm { book.received.withLock { $0.append(token) } }
            let status = book.answers.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            return HTTPResponse(status: HTTPStatus(status), headers: ["Cache-Control": "no-store"], body: .empty)
        }
        try await server.start()
    }

    /// The URL to register as `backchannelLogoutUri`.
    var url: String { "http://127.0.0.1:\(server.localAddress?.port ?? 0)/bff/backchannel-logout" }

    /// Every token received, oldest first.
    var tokens: [String] { book.received.withLock { $0 } }

    /// Waits (up to `seconds`) until `count` tokens have arrived.
    func waitFor(_ count: Int, seconds: Double = 20) async -> [String] {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while tokens.count < count, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return tokens
    }

    func stop() async { await server.shutdown(gracePeriod: .milliseconds(100)) }
}
