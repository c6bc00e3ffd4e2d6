import HTTPCodec

/// The codec's `ChunkedBodyDecoder` with the rules for upstream responses:
/// a bare LF may end a line (as in their heads), and the limits of
/// `ResponseLimits`; a refusal is the client's `.invalidResponse`.
struct ChunkedDecoder {
    typealias Step = ChunkedBodyDecoder.Step

    private var decoder = ChunkedBodyDecoder(
        bareLF: true, lineBytes: ResponseLimits.maxChunkLineBytes, trailerBytes: ResponseLimits.maxTrailerBytes)

    /// One step of the codec's decoder over the unconsumed bytes.
    @inline(__always)
    mutating func step(_ bytes: UnsafeRawBufferPointer) throws(HTTPClientError) -> Step {
        do {
            return try decoder.step(bytes)
        } catch {
            throw .invalidResponse
        }
    }

    /// Records that the first `count` bytes of a `.data` step were taken.
    @inline(__always)
    mutating func delivered(_ count: Int) { decoder.delivered(count) }
}
