import HTTPCodec

extension UpstreamConnection {
    /// What an upstream connection changes in place on every event: held
    /// in one unchecked property (see `UpstreamConnection.state`).
    struct State {
        /// The connection's state, changed only through its events.
        var machine = UpstreamConnectionMachine()
        /// The exchange this connection carries, if any.
        var exchange: UpstreamExchange?
        /// The request's bytes queued to send.
        var outbound: [UInt8] = []
        /// Received bytes not yet processed (a head or a chunk cut by a read).
        var pending: [UInt8] = []
        /// The answer's framing, once its head has arrived.
        var response: UpstreamResponseHead.Frame?
        var decoder = ChunkedDecoder()
    }
}
