extension HTTPConnection {
    /// What a connection changes in place on every event: held in one
    /// unchecked property (see `HTTPConnection.state`).
    struct State {
        /// The connection's state, changed only through its events.
        var machine: HTTPConnectionMachine
        var parser: HTTPRequestParser
        /// Received bytes, parsed from `HTTPConnection.inputStart`.
        var input: [UInt8] = []
        /// Bytes queued to send, sent from `HTTPConnection.outputStart`.
        var output: [UInt8] = []
        /// The response being written.
        var response = ResponseProgress()

        /// Parses `input[start...]`: one access to the state for reading
        /// the input and advancing the parser, which touch nothing else.
        mutating func parse(from start: Int) -> Result<(event: HTTPParserEvent, consumed: Int), HTTPParseError> {
            input.withUnsafeBytes { raw in
                Result { () throws(HTTPParseError) in try parser.parse(UnsafeRawBufferPointer(rebasing: raw[start...])) }
            }
        }
    }
}
