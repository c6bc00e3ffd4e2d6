import HTTP
import HTTPClient
import Synchronization
import Testing

/// Pausing and resuming in both directions, and early ends.
@Suite struct StreamingFlowTests {
    @Test(arguments: Engine.allCases) func slowSourcePausesAndResumesTheUpload(engine: Engine) async throws {
        let upstream = try await Upstream.start()
        try await withClient(configuration: engine.configuration()) { client, _ in
            let next = Mutex(0)
            let body = HTTPClientRequestBody(length: nil) {
                let index = next.withLock { n in defer { n += 1 }; return n }
                guard index < 5 else { return nil }
                try await Task.sleep(for: .milliseconds(30))
                return Array("piece\(index);".utf8)
            }
            let response = try await client.stream(
                HTTPClientRequest(method: .post, url: upstream.url("/echo"), timeout: .milliseconds(500)), body: body)
            let text = String(decoding: try await response.body.collect(upTo: 10_000), as: UTF8.self)
            #expect(text.contains("Transfer-Encoding: chunked\n"))
            #expect(text.hasSuffix("\n\npiece0;piece1;piece2;piece3;piece4;"))
        }
        await upstream.stop()
    }

    @Test(arguments: Engine.allCases) func earlyAnswerStopsTheUpload(engine: Engine) async throws {
        // The upstream answers 413 without reading the body.
        let upstream = try await Upstream.start(responder: { _ in
            HTTPResponse(status: .payloadTooLarge, bytes: Array("too big".utf8))
        })
        try await withClient(configuration: engine.configuration()) { client, _ in
            let pulled = Mutex(0)
            let body = HTTPClientRequestBody(length: nil) {
                pulled.withLock { $0 += 1 }
                return [UInt8](repeating: 7, count: 64 * 1024)
            }
            do {
                let response = try await client.stream(HTTPClientRequest(method: .post, url: upstream.url("/x")), body: body)
                #expect(response.status == .payloadTooLarge)
                _ = try? await response.body.collect(upTo: 100)
            } catch {
                // Equally acceptable: the upstream closed while we were sending.
                let code = (error as? HTTPClientError).map { "\($0)" } ?? "\(error)"
                #expect(code.contains("code 55") || code.contains("code 56"))
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(client.stats.activeTransfers.load(ordering: .relaxed) == 0)
            // The source stopped being pulled: far less than "forever".
            #expect(pulled.withLock { $0 } < 1000)
            #expect(client.stats.streamBufferedBytes.load(ordering: .relaxed) == 0)
        }
        await upstream.stop()
    }

    @Test(arguments: Engine.allCases) func slowReaderGetsEveryByteInOrder(engine: Engine) async throws { try await HeavyTests.run {
        let upstream = try await Upstream.start()
        var configuration = HTTPClientConfiguration()
        configuration.streamBufferBytes = 32 * 1024
        try await withClient(configuration: engine.configuration(configuration)) { client, _ in
            let size = 2_000_000
            let response = try await client.stream(HTTPClientRequest(url: upstream.url("/chunked/\(size)")), body: nil)
            var received: [UInt8] = []
            var pieces = 0
            for try await piece in response.body {
                received.append(contentsOf: piece)
                pieces += 1
                if pieces % 16 == 0 { try await Task.sleep(for: .milliseconds(2)) }
            }
            #expect(received.count == size)
            let expected: [UInt8] = (0..<size).map { (index: Int) -> UInt8 in UInt8((index % 65536) % 251) }
            #expect(received == expected)
            #expect(client.stats.streamBufferedBytesPeak.load(ordering: .relaxed) <= 32 * 1024 + 16 * 1024)
        }
        await upstream.stop()
    } }
}
