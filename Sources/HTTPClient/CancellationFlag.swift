import Synchronization

/// Set when the awaiting task is cancelled, so a start that runs after the
/// cancellation handler (which found nothing to cancel yet) sees it.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
