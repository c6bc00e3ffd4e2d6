/// A reference to a loop-confined object that may cross into tasks. The
/// value is only ever touched on its loop's thread: `withValue` runs the
/// body at once when already there, else queues it on the loop.
///
/// `@unchecked Sendable`: the wrapped object is reachable only through
/// `withValue`, which guarantees execution on `loop`'s thread.
public struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    public let loop: EventLoop
    private let value: Value

    public init(_ value: Value, loop: EventLoop) {
        loop.assertInLoop()
        self.value = value
        self.loop = loop
    }

    /// Runs `body` with the value on the loop thread (now, or soon).
    public func withValue(_ body: @escaping @Sendable (Value) -> Void) {
        if loop.inLoop {
            body(value)
        } else {
            let bound = self
            loop.execute { body(bound.value) }
        }
    }

    /// The value, for code already on the loop thread.
    public var valueInLoop: Value {
        loop.assertInLoop()
        return value
    }
}
