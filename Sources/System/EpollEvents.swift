import CSystem

/// The epoll event bits a handler is registered for or is woken with.
public struct EpollEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = EpollEvents(rawValue: EPOLLIN.rawValue)
    public static let writable = EpollEvents(rawValue: EPOLLOUT.rawValue)
    public static let error = EpollEvents(rawValue: EPOLLERR.rawValue)
    public static let hangup = EpollEvents(rawValue: EPOLLHUP.rawValue)
    public static let readHangup = EpollEvents(rawValue: EPOLLRDHUP.rawValue)
}

/// Something a loop wakes when its descriptor is ready. Called only on the
/// loop's own thread.
public protocol EventLoopHandler: AnyObject {
    func handleEvents(_ events: EpollEvents)
}

/// Names one descriptor's registration with one loop. Registrations are
/// never keyed by the descriptor number, which the kernel reuses.
public struct Registration: Hashable, Sendable {
    let id: UInt64
}
