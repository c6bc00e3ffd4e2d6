import HTTP
import HTTPClient
import Synchronization
import Testing

/// 100 MB each way through bounded buffers. Serialized so the memory
/// figures of one are not muddied by the other.
@Suite(.serialized) struct StreamingTests {
    static let size = 100 * 1_000_000

    @Test(arguments: Engine.allCases) func downloadOf100MBStaysInBoundedMemory(engine: Engine) async throws { try await HeavyTests.run {
        let upstream = try await Upstream.start()
        try await withClient(configuration: engine.configuration()) { client, _ in
            let before = residentBytes()
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/download/\(Self.size)")), body: nil)
            #expect(response.status == .ok)
            #expect(response.headers["Content-Length"] == String(Self.size))
            var total = 0, sum: UInt64 = 0, pieces = 0
            for try await piece in response.body {
                total += piece.count
                pieces += 1
                for byte in piece { sum &+= UInt64(byte) }
                await Task.yield() // a debug-build checksum is slow: share the pool
            }
            let growth = residentBytes() - before
            #expect(total == Self.size)
            #expect(sum == patternChecksum(Self.size))
            let peak = client.stats.streamBufferedBytesPeak.load(ordering: .relaxed)
            print("download: peak buffered \(peak) bytes, RSS growth \(growth / 1_000_000) MB")
            #expect(peak <= client.configuration.streamBufferBytes + 256 * 1024)
            #expect(growth < 30_000_000)
            #expect(client.stats.streamBufferedBytes.load(ordering: .relaxed) == 0)
        }
        await upstream.stop()
    } }

    /// A source producing `size` patterned bytes in 64 KiB pieces.
    static func patternSource(_ size: Int, length: Int?) -> HTTPClientRequestBody {
        let produced = Atomic<Int>(0)
        let piece = (0..<(64 * 1024)).map { UInt8($0 % 251) }
        return HTTPClientRequestBody(length: length) {
            let sent = produced.load(ordering: .relaxed)
            guard sent < size else { return nil }
            let count = min(piece.count, size - sent)
            produced.add(count, ordering: .relaxed)
            return count == piece.count ? piece : Array(piece[0..<count])
        }
    }

    /// Memory: the upstream is a raw sink holding one read buffer, so the
    /// RSS figure is the client's alone.
    @Test(arguments: Engine.allCases) func uploadOf100MBStaysInBoundedMemory(engine: Engine) async throws { try await HeavyTests.run {
        let sink = try ScriptedUpstream(.countBody)
        try await withClient(configuration: engine.configuration()) { client, _ in
            let before = residentBytes()
            let response = try await client.stream(
                HTTPClientRequest(method: .put, url: "http://127.0.0.1:\(sink.port)/upload"),
                body: Self.patternSource(Self.size, length: Self.size))
            #expect(response.status == .ok)
            let text = String(decoding: try await response.body.collect(upTo: 1000), as: UTF8.self)
            #expect(text == "\(Self.size) \(patternChecksum(Self.size))")
            let growth = residentBytes() - before
            let peak = client.stats.streamBufferedBytesPeak.load(ordering: .relaxed)
            print("upload: peak buffered \(peak) bytes, RSS growth \(growth / 1_000_000) MB")
            #expect(peak <= client.configuration.streamBufferBytes + 128 * 1024)
            #expect(growth < 30_000_000)
        }
    } }

    /// Through the project's own server, which reads with `body.next()`
    /// (chunked, no declared length). Buffers checked by the client's
    /// tracked peak; the process RSS here includes the server's.
    @Test(arguments: Engine.allCases) func chunkedUploadOf100MBThroughTheServer(engine: Engine) async throws { try await HeavyTests.run {
        let upstream = try await Upstream.start()
        try await withClient(configuration: engine.configuration()) { client, _ in
            let before = residentBytes()
            let response = try await client.stream(
                HTTPClientRequest(method: .post, url: upstream.url("/upload")),
                body: Self.patternSource(Self.size, length: nil))
            #expect(response.status == .ok)
            let text = String(decoding: try await response.body.collect(upTo: 1000), as: UTF8.self)
            #expect(text == "\(Self.size) \(patternChecksum(Self.size))")
            #expect(client.stats.streamBufferedBytesPeak.load(ordering: .relaxed) <= client.configuration.streamBufferBytes + 128 * 1024)
            #expect(client.stats.streamBufferedBytes.load(ordering: .relaxed) == 0)
            print("upload through the server: RSS growth \((residentBytes() - before) / 1_000_000) MB (client and server)")
        }
        await upstream.stop()
    } }

    @Test(arguments: Engine.allCases) func uploadWithDeclaredLengthSendsContentLength(engine: Engine) async throws {
        let upstream = try await Upstream.start()
        try await withClient(configuration: engine.configuration()) { client, _ in
            let pieces = Mutex([Array("hello ".utf8), Array("world".utf8)])
            let body = HTTPClientRequestBody(length: 11) { pieces.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
            let response = try await client.stream(HTTPClientRequest(method: .post, url: upstream.url("/echo")), body: body)
            let text = String(decoding: try await response.body.collect(upTo: 10_000), as: UTF8.self)
            #expect(text.contains("Content-Length: 11\n"))
            #expect(!text.contains("Transfer-Encoding"))
            #expect(text.hasSuffix("\n\nhello world"))
        }
        await upstream.stop()
    }

    @Test(arguments: Engine.allCases) func sourceThatEndsShortOrThrowsFailsTheTransfer(engine: Engine) async throws {
        let upstream = try await Upstream.start()
        try await withClient(configuration: engine.configuration()) { client, _ in
            let short = HTTPClientRequestBody(length: 100) { nil }
            await #expect(throws: HTTPClientError.requestBodyFailed) {
                try await client.stream(HTTPClientRequest(method: .post, url: upstream.url("/upload")), body: short)
            }
            struct Broken: Error {}
            let broken = HTTPClientRequestBody(length: nil) { throw Broken() }
            await #expect(throws: HTTPClientError.requestBodyFailed) {
                try await client.stream(HTTPClientRequest(method: .post, url: upstream.url("/upload")), body: broken)
            }
        }
        await upstream.stop()
    }

    @Test(arguments: Engine.allCases) func headArrivesBeforeTheBodyIsComplete(engine: Engine) async throws {
        let release = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let upstream = try await Upstream.start(responder: { _ in
            HTTPResponse(status: .ok, headers: ["X-Early": "yes"], body: .stream(length: nil) { writer in
                try await writer.write(Array("first".utf8))
                await withCheckedContinuation { continuation in release.withLock { $0 = continuation } }
                try await writer.write(Array("second".utf8))
            })
        })
        try await withClient(configuration: engine.configuration()) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            #expect(response.headers["X-Early"] == "yes")
            var iterator = response.body.makeAsyncIterator()
            #expect(try await iterator.next() == Array("first".utf8))
            while release.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(5)) }
            release.withLock { $0?.resume() }
            #expect(try await iterator.next() == Array("second".utf8))
            #expect(try await iterator.next() == nil)
        }
        await upstream.stop()
    }

    @Test(arguments: Engine.allCases) func droppingTheBodyCancelsTheTransfer(engine: Engine) async throws {
        let upstream = try await Upstream.start()
        try await withClient(configuration: engine.configuration()) { client, _ in
            do {
                let response = try await client.stream(HTTPClientRequest(url: upstream.url("/download/\(Self.size)")), body: nil)
                var iterator = response.body.makeAsyncIterator()
                _ = try await iterator.next()
            }
            for _ in 0..<100 where client.stats.activeTransfers.load(ordering: .relaxed) > 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(client.stats.activeTransfers.load(ordering: .relaxed) == 0)
            #expect(client.stats.streamBufferedBytes.load(ordering: .relaxed) == 0)
        }
        await upstream.stop()
    }

    @Test(arguments: Engine.allCases) func cancellingTheReadingTaskCancelsTheTransfer(engine: Engine) async throws {
        let upstream = try await Upstream.start(responder: { _ in
            HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                try await writer.write(Array("x".utf8))
                try await Task.sleep(for: .seconds(10))
            })
        })
        try await withClient(configuration: engine.configuration()) { client, _ in
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/")), body: nil)
            let reader = Task { try await response.body.collect(upTo: 100) }
            try await Task.sleep(for: .milliseconds(100))
            reader.cancel()
            let result = await reader.result
            #expect(throws: HTTPClientError.cancelled) { try result.get() }
            for _ in 0..<100 where client.stats.activeTransfers.load(ordering: .relaxed) > 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(client.stats.activeTransfers.load(ordering: .relaxed) == 0)
        }
        await upstream.stop()
    }

    @Test(arguments: Engine.allCases) func idleStreamTimesOut(engine: Engine) async throws {
        let upstream = try await Upstream.start(responder: { _ in
            HTTPResponse(status: .ok, body: .stream(length: nil) { writer in
                try await writer.write(Array("x".utf8))
                try await Task.sleep(for: .seconds(5))
            })
        })
        try await withClient(configuration: engine.configuration()) { client, _ in
            let start = ContinuousClock.now
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/"), timeout: .milliseconds(300)), body: nil)
            await #expect(throws: HTTPClientError.timedOut(requestSent: true)) {
                _ = try await response.body.collect(upTo: 100)
            }
            #expect(ContinuousClock.now - start < .seconds(2))
        }
        await upstream.stop()
    }
}
