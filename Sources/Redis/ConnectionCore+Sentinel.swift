import System

extension ConnectionCore {
    /// The sentinels announced a new master: a connection to another
    /// address is dropped and made again at once (it asks the sentinels and
    /// confirms with `ROLE`); one waiting to reconnect goes now.
    func masterMoved(to address: RedisAddress) {
        switch phase {
        case .connecting(let context), .ready(let context):
            guard target != address else { return }
            dropForMasterChange(context, "the master moved to \(address)")
        case .waiting(let timer):
            loop.cancelTimer(timer)
            reconnectNow()
        default:
            return
        }
    }

    /// A write was refused with `READONLY`: the server became a replica.
    /// With Sentinel, drop and ask again; otherwise leave the connection be
    /// (the commands fail and say why).
    func sawReadOnly(on context: RedisWire) {
        guard configuration.sentinel != nil, currentContext === context else { return }
        dropForMasterChange(context, "the server turned read-only")
    }
}
