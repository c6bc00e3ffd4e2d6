extension UpstreamPool {
    /// What the pool changes in place on every request: held in one
    /// unchecked property (see `UpstreamPool.state`).
    struct State {
        /// Connections carrying an exchange, by the exchange's id.
        var running: [UInt64: UpstreamConnection] = [:]
        /// The idle connections by endpoint.
        var idle: [String: IdleList] = [:]
        /// The same lists by endpoint number (`PlainHTTPTarget.slot`), for
        /// requests on a base the client numbered: found without a hash.
        var idleBySlot: [IdleList?] = []
        /// Idle connections across every endpoint.
        var idleCount = 0
        /// Exchanges past the per-host limit, by endpoint, oldest first.
        var queued: [String: [UpstreamExchange]] = [:]
    }
}
