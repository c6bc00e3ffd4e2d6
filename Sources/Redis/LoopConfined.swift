import System

/// A reference to an object that only its loop's thread touches, which may
/// be held by `Sendable` types and captured by closures sent to the loop.
///
/// `LoopBound` needs to be created on the loop; this one may be created
/// anywhere, because the objects it wraps are built before any loop thread
/// can see them and are first reached through `EventLoop.execute`, whose
/// mutex-protected queue orders the construction before every later use.
///
/// `@unchecked Sendable`: after construction the value is reached only
/// through `run` (which runs on the loop thread, at once or queued) and
/// `onLoop` (which asserts the loop thread), so it is never touched by two
/// threads.
struct LoopConfined<Value: AnyObject>: @unchecked Sendable {
    let loop: EventLoop
    private let value: Value

    init(_ value: Value, loop: EventLoop) {
        self.value = value
        self.loop = loop
    }

    /// Runs `body` with the value on the loop thread: now when already
    /// there, else queued on the loop.
    func run(_ body: @escaping @Sendable (Value) -> Void) {
        if loop.inLoop {
            body(value)
        } else {
            let confined = self
            loop.execute { body(confined.value) }
        }
    }

    /// Runs `body` with the value on the loop thread and returns once it has.
    func runAndWait(_ body: @escaping @Sendable (Value) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            run { value in
                body(value)
                continuation.resume()
            }
        }
    }

    /// Runs `body` on the loop thread later in this iteration, even when
    /// called on it (never inline).
    func later(_ body: @escaping @Sendable (Value) -> Void) {
        let confined = self
        loop.execute { body(confined.value) }
    }

    /// The value, for code already on the loop thread.
    var onLoop: Value {
        loop.assertInLoop()
        return value
    }
}
