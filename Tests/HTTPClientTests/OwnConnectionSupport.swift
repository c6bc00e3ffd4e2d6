import Core
import Dispatch
import HTTP
@testable import HTTPClient
import Synchronization
import System
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Helpers of the tests of the client's own connections (OwnConnectionTests,
// WholeBodyTests).

/// Short timeouts, so a mistake fails within a second instead of hanging.
let quick = HTTPClientConfiguration(connectTimeout: .seconds(1), timeout: .seconds(1))

/// Parses `text`, a whole response head through its blank line.
func parseHead(_ text: String, headRequest: Bool = false) throws(HTTPClientError) -> UpstreamResponseHead {
    try Array(text.utf8).withUnsafeBytes { bytes in
        Result { () throws(HTTPClientError) in try UpstreamResponseParser.parse(bytes, headRequest: headRequest) }
    }.get()
}

/// Decodes `input` handed over `size` bytes at a time (as reads would),
/// keeping what a step left unused for the next one, as the connection
/// does. Returns the body, whether its end was seen, and how many bytes
/// past the end were left unused.
func decodeChunked(_ input: [UInt8], feedBy size: Int) throws(HTTPClientError)
    -> (body: [UInt8], ended: Bool, unused: Int) {
    var decoder = ChunkedDecoder()
    var body: [UInt8] = []
    var buffered: [UInt8] = []
    var offset = 0
    while offset < input.count {
        let next = min(offset + size, input.count)
        buffered += input[offset..<next]
        offset = next
        stepping: while true {
            let step = try buffered.withUnsafeBytes { bytes in
                Result { () throws(HTTPClientError) in try decoder.step(bytes) }
            }.get()
            switch step {
            case .more:
                break stepping
            case .framing(let count):
                buffered.removeFirst(count)
            case .data(let count):
                body += buffered[..<count]
                decoder.delivered(count)
                buffered.removeFirst(count)
            case .end(let count):
                buffered.removeFirst(count)
                return (body, true, buffered.count + input.count - offset)
            }
        }
    }
    return (body, false, 0)
}

/// A streamed request body handing out `pieces` in order.
func streamedBody(_ pieces: [String], length: Int?) -> HTTPClientRequestBody {
    let queue = Mutex(pieces.map { Array($0.utf8) })
    return HTTPClientRequestBody(length: length) { queue.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}

/// A response's status code and its whole body as text.
struct Answer: Equatable {
    var status: Int
    var body: String

    init(_ status: Int, _ body: String) {
        self.status = status
        self.body = body
    }
}

/// Streams a GET of `url` and reads its whole body.
func get(_ client: HTTPClient, _ url: String) async throws(HTTPClientError) -> Answer {
    try await get(client, HTTPClientRequest(url: url))
}

/// GETs `urls` one after another through one client on one loop.
func getInTurn(_ urls: [String]) async throws -> [Answer] {
    try await withClient(loops: 1, configuration: quick) { client, _ in
        var answers: [Answer] = []
        for url in urls { answers.append(try await get(client, url)) }
        return answers
    }
}

/// Streams `request` (its body given whole) and reads the whole answer.
func get(_ client: HTTPClient, _ request: HTTPClientRequest) async throws(HTTPClientError) -> Answer {
    let response = try await client.stream(request, body: nil)
    return Answer(response.status.code, String(decoding: try await response.body.collect(upTo: 1 << 16), as: UTF8.self))
}
