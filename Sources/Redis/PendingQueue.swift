/// What waits for one reply, in the order the commands were written.
enum Waiter {
    /// A lone `send`: an error reply becomes ``RedisError/server(_:)``
    /// naming `command`.
    case single(command: [UInt8], CheckedContinuation<Result<RedisValue, RedisError>, Never>)
    /// One command of a pipelined batch.
    case batch(BatchCollector, index: Int)
    /// `AUTH`, `SELECT`, `PING` or `ROLE` while connecting.
    case handshake(HandshakeStep)
    /// A command the loop-confined owner sends for itself (the tracking
    /// set-up); called on the loop thread with the reply or the failure.
    case callback((Result<RedisValue, RedisError>) -> Void)
}

/// The connect-time commands, in the order they are sent.
enum HandshakeStep: Sendable {
    case auth, select, ping, role

    var name: String {
        switch self {
        case .auth: "AUTH"
        case .select: "SELECT"
        case .ping: "PING"
        case .role: "ROLE"
        }
    }
}

/// A command written to a context and not yet answered.
struct PendingCommand {
    let waiter: Waiter
    /// Monotonic nanoseconds after which the command has timed out.
    let deadline: UInt64
}

/// Gathers the replies of a pipelined batch and resumes its caller once:
/// with every reply, or with the first failure.
final class BatchCollector {
    private var results: [RedisValue]
    private var remaining: Int
    private var continuation: CheckedContinuation<Result<[RedisValue], RedisError>, Never>?

    init(count: Int, continuation: CheckedContinuation<Result<[RedisValue], RedisError>, Never>) {
        results = Array(repeating: .null, count: count)
        remaining = count
        self.continuation = continuation
    }

    func deliver(_ result: Result<RedisValue, RedisError>, at index: Int) {
        guard let continuation else { return }
        switch result {
        case .success(let value):
            results[index] = value
            remaining -= 1
            if remaining == 0 {
                self.continuation = nil
                continuation.resume(returning: .success(results))
            }
        case .failure(let error):
            self.continuation = nil
            continuation.resume(returning: .failure(error))
        }
    }
}

/// A first-in first-out queue: an array with a moving head, compacted when
/// the dead prefix grows past half. (The standard library has no deque.)
struct FIFO<Element> {
    private var storage: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) { storage.append(element) }

    mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    mutating func removeAll() -> [Element] {
        let elements = storage[head...].compactMap { $0 }
        storage.removeAll(keepingCapacity: true)
        head = 0
        return elements
    }
}
