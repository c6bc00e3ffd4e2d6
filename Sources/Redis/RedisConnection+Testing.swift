import Synchronization

// Hooks for the tests (`@testable import Redis`): they observe, never steer.

extension RedisConnection {
    /// Watches the current wire, to prove that it is released once closed.
    func contextProbe() async -> ContextProbe {
        await withCheckedContinuation { continuation in
            core.withValue { continuation.resume(returning: ContextProbe($0.currentContext)) }
        }
    }
}

extension RedisSubscriber {
    func contextProbe() async -> ContextProbe {
        await withCheckedContinuation { continuation in
            core.withValue { continuation.resume(returning: ContextProbe($0.connection.currentContext)) }
        }
    }
}

/// Watches one context's lifetime. `isReleased` turns true once nothing
/// (neither the core nor the loop's handler table) keeps
/// the context alive.
final class ContextProbe: Sendable {
    private let lifetime: ContextLifetime?

    init(_ context: RedisWire?) {
        lifetime = context?.lifetime
    }

    var existed: Bool { lifetime != nil }
    var isReleased: Bool { lifetime?.ended ?? true }
}

/// Set when a context is deallocated; read by tests through ContextProbe.
final class ContextLifetime: Sendable {
    private let flag = Atomic<Bool>(false)
    var ended: Bool { flag.load(ordering: .acquiring) }
    func end() { flag.store(true, ordering: .releasing) }
}
