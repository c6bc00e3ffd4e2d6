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

    /// `clock`: the loops' clock (a `ManualLoopClock` for a test that
    /// moves time itself, with `advance`).
    public static func launch(loops: Int, name: String, clock: any LoopClock = MonotonicClock(),
                              configure: (inout HTTPServerConfiguration) -> Void,
                              immediate: HTTPImmediateResponder? = nil,
                              responder: @escaping HTTPResponder) async throws -> LoopbackServer {
        let group = try EventLoopGroup(loops: loops, name: name, clock: clock)
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

    /// Moves the loops' manual clock forward by `duration` and runs the
    /// timers that came due (the server's deadline sweep among them).
    /// What the server was sent before is handled first: each loop passes
    /// twice (accepting a connection, then reading what it holds).
    public func advance(by duration: Duration) async {
        guard let clock = group.loops[0].clock as? ManualLoopClock else {
            preconditionFailure("advance(by:) needs a server on a ManualLoopClock")
        }
        await settle()
        clock.advance(by: duration)
        await group.runExpiredTimers()
    }

    /// Lets every loop handle what is already waiting for it: connections
    /// to accept, bytes to read.
    public func settle() async {
        await group.runExpiredTimers()
    }

    /// Waits until `condition` holds (checked every few milliseconds, for
    /// at most 30 s of real time): for what the server does on its loops
    /// in its own time, never to let time pass.
    public func eventually(_ condition: () async -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(30)
        while await !condition(), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// A raw client connected to the server.
    public func client() throws -> RawClient { try RawClient(port: port) }
}
