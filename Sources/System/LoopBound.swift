/// A reference to an object that only its loop's thread touches, which may
/// be held by `Sendable` types and captured by closures sent to the loop:
/// the one confinement primitive of the project.
///
/// It may be created on any thread: an object wrapped before a loop thread
/// can see it is first reached through `EventLoop.execute`, whose
/// mutex-protected queue orders the construction before every later use.
///
/// `@unchecked Sendable`: after construction the value is reached only
/// through `withValue`, `later` and `withValueAndWait` (which run on the
/// loop thread, at once or queued) and `valueInLoop` (which asserts the
/// loop thread), so two threads never touch it.
public struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    /// The loop whose thread alone touches the value.
    public let loop: EventLoop
    private let value: Value

    /// Binds `value` to `loop` (see the type's comment for why any thread may).
    public init(_ value: Value, loop: EventLoop) {
        self.value = value
        self.loop = loop
    }

    /// Runs `body` with the value on the loop thread: now when already
    /// there, else queued on the loop.
    public func withValue(_ body: @escaping @Sendable (Value) -> Void) {
        if loop.inLoop {
            body(value)
        } else {
            let bound = self
            loop.execute { body(bound.value) }
        }
    }

    /// Runs `body` on the loop thread later in this iteration, even when
    /// called on it (never inline).
    public func later(_ body: @escaping @Sendable (Value) -> Void) {
        let bound = self
        loop.execute { body(bound.value) }
    }

    /// Runs `body` with the value on the loop thread and returns once it has.
    public func withValueAndWait(_ body: @escaping @Sendable (Value) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withValue { value in
                body(value)
                continuation.resume()
            }
        }
    }

    /// The value, for code already on the loop thread.
    public var valueInLoop: Value {
        loop.assertInLoop()
        return value
    }
}
