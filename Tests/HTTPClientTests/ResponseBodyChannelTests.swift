import Synchronization
import Testing
@testable import HTTPClient

/// The buffer between a transfer and the task that reads its body.
@Suite("Response body channel")
struct ResponseBodyChannelTests {
    /// One reader waits at a time: a second reader, while the first waits,
    /// is refused at once instead of taking the first one's place (which
    /// left the first waiting forever). Both readers run in tasks and are
    /// polled, so a regression fails the test instead of hanging it.
    @Test func aSecondWaitingReaderIsRefusedAndTheFirstGetsThePiece() async throws {
        let channel = ResponseBodyChannel(highWater: 1024, stats: HTTPClientStats(), onDrained: {}, onAbandon: {})
        let first = Read(channel)
        for _ in 0..<400 where !channel.hasWaitingReader { try await Task.sleep(for: .milliseconds(5)) }
        #expect(channel.hasWaitingReader)
        let second = Read(channel)
        try await second.wait()
        #expect(second.outcome == .failure(.cancelled), "refused at once")
        #expect(Array("body".utf8).withUnsafeBytes { channel.offer($0) })
        try await first.wait()
        #expect(first.outcome == .success(Array("body".utf8)))
    }

    /// One `next()` in a task of its own, and what it returned.
    private final class Read: Sendable {
        private let result = Mutex<Result<[UInt8]?, HTTPClientError>?>(nil)

        init(_ channel: ResponseBodyChannel) {
            Task { [self] in
                let outcome: Result<[UInt8]?, HTTPClientError>
                do throws(HTTPClientError) { outcome = .success(try await channel.next()) } catch { outcome = .failure(error) }
                result.withLock { $0 = outcome }
            }
        }

        var outcome: Result<[UInt8]?, HTTPClientError>? { result.withLock { $0 } }

        /// Until it has returned, for at most five seconds.
        func wait() async throws {
            for _ in 0..<1000 where outcome == nil { try await Task.sleep(for: .milliseconds(5)) }
        }
    }
}
