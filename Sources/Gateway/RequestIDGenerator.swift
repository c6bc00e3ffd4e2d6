import Synchronization

/// Request ids: a random per-process prefix and a counter, so ids are
/// unique across instances and cheap to make.
public final class RequestIDGenerator: Sendable {
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    public init() {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        prefix = String(repeating: "0", count: 16 - hex.count) + hex
    }

    public func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        var id = prefix
        id.append("-")
        id.append(String(n, radix: 16))
        return id
    }
}
