import HTTPCodec

/// Message bodies: Content-Length, and chunked through the codec's decoder
/// (RFC 9112 §6-§7).
extension HTTPRequestParser {
    /// Emits whatever part of a Content-Length body is available.
    mutating func parseFixedBody(_ input: Input) -> (event: HTTPParserEvent, consumed: Int) {
        if remaining == 0 {
            startNextRequest()
            return (.end, 0)
        }
        let available = min(remaining, input.count)
        guard available > 0 else { return (.needMore, 0) }
        remaining -= available
        return (.body(0..<available), available)
    }

    /// Walks chunk framing until a piece of chunk data, the end, or the end of
    /// the input. Framing bytes already processed are consumed even on
    /// `.needMore`. The decoder runs with the server's rules: CRLF only,
    /// and the head's limits for the trailers (set when the head ended).
    mutating func parseChunkedBody(_ input: Input) throws(HTTPParseError) -> (event: HTTPParserEvent, consumed: Int) {
        var offset = 0
        while true {
            switch try chunks.step(input.slice(offset..<input.count)) {
            case .more:
                return (.needMore, offset)
            case .framing(let count):
                offset += count
            case .data(let count):
                chunks.delivered(count)
                return (.body(offset..<offset + count), offset + count)
            case .end(let count):
                startNextRequest()
                return (.end, offset + count)
            }
        }
    }
}
