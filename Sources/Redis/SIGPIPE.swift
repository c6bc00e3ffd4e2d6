#if canImport(Glibc)
import Glibc
#endif
import Synchronization

private let sigpipeChecked = Atomic<Bool>(false)

/// hiredis writes with `write(2)`, not `send(MSG_NOSIGNAL)`: a write to a
/// socket whose peer is gone raises `SIGPIPE`, whose default action kills
/// the process. Ignore it, but only if no one has installed a handler.
func ignoreSIGPIPEIfDefault() {
    if sigpipeChecked.exchange(true, ordering: .relaxed) { return }
    var current = sigaction()
    guard sigaction(SIGPIPE, nil, &current) == 0 else { return }
    if current.__sigaction_handler.sa_handler == nil {
        _ = signal(SIGPIPE, SIG_IGN)
    }
}
