import CCurl
import System

/// One socket libcurl asked the loop to watch. Holds its multi strongly, so
/// a multi with watched sockets lives until `shutdown`.
final class CurlSocket: EventLoopHandler {
    let fd: Int32
    let multi: CurlMulti
    private var registration: Registration?
    private var events: EpollEvents = []

    init(fd: Int32, multi: CurlMulti) {
        self.fd = fd
        self.multi = multi
    }

    func register(_ events: EpollEvents) throws(SystemError) {
        registration = try multi.loop.register(fd, for: events, handler: self)
        self.events = events
    }

    func update(_ events: EpollEvents) {
        guard let registration, events != self.events else { return }
        self.events = events
        multi.loop.modify(registration, fd: fd, for: events)
    }

    func deregister() {
        guard let registration else { return }
        self.registration = nil
        multi.loop.deregister(registration, fd: fd)
    }

    func handleEvents(_ events: EpollEvents) {
        var mask: Int32 = 0
        if !events.isDisjoint(with: [.readable, .readHangup, .hangup]) { mask |= CURL_CSELECT_IN }
        if events.contains(.writable) { mask |= CURL_CSELECT_OUT }
        if events.contains(.error) { mask |= CURL_CSELECT_ERR }
        multi.socketAction(fd, mask)
    }
}
