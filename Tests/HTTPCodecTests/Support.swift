import HTTPCodec

/// Runs `body` on the UTF-8 bytes of `text` as the codec's input.
func withInput<R>(_ text: String, _ body: (HTTPInput) throws(HTTPParseError) -> R) throws(HTTPParseError) -> R {
    let bytes = Array(text.utf8)
    return try bytes.withUnsafeBytes { raw in
        Result { () throws(HTTPParseError) -> R in try body(HTTPInput(bytes: raw)) }
    }.get()
}

/// What a chunked body decoded to: its data, whether it ended, the bytes
/// left after its end, or the refusal.
struct Decoded: Equatable {
    var body = ""
    var ended = false
    var unused = 0
    var refusal: HTTPStatus?
}

/// Decodes `text` handed over `size` bytes at a time, keeping what a step
/// left for the next one, as a connection does.
func decode(_ text: String, feedBy size: Int, _ make: () -> ChunkedBodyDecoder) -> Decoded {
    var decoder = make()
    var result = Decoded()
    let input = Array(text.utf8)
    var body: [UInt8] = []
    var buffered: [UInt8] = []
    var offset = 0
    while offset < input.count {
        let next = min(offset + size, input.count)
        buffered += input[offset..<next]
        offset = next
        stepping: while true {
            let step: ChunkedBodyDecoder.Step
            switch buffered.withUnsafeBytes({ raw in Result { () throws(HTTPParseError) in try decoder.step(raw) } }) {
            case .success(let taken):
                step = taken
            case .failure(let error):
                result.refusal = error.status
                return result
            }
            switch step {
            case .more:
                break stepping
            case .framing(let count):
                buffered.removeFirst(count)
            case .data(let count):
                body += buffered[..<count]
                result.body = String(decoding: body, as: UTF8.self)
                decoder.delivered(count)
                buffered.removeFirst(count)
            case .end(let count):
                buffered.removeFirst(count)
                result.ended = true
                result.unused = buffered.count + input.count - offset
                return result
            }
        }
    }
    return result
}
