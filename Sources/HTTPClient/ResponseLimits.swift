/// Limits on what an upstream response may send, the same on every path
/// (the own connections' reader and libcurl's header lines).
enum ResponseLimits {
    /// The most a response head may take.
    static let maxHeadBytes = 64 * 1024
    /// The longest chunk-size line, with its line end.
    static let maxChunkLineBytes = 4096
    /// The most the trailers after a chunked body may take.
    static let maxTrailerBytes = 16 * 1024
}
