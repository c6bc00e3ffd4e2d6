import Synchronization

/// How many of something (open connections, requests in flight) each IP
/// address holds now, shared by every thread: a claim that would pass the
/// limit is refused and changes nothing. An address whose count falls to
/// zero is forgotten, so the table holds only addresses holding something.
public final class AddressCounts: Sendable {
    private let counts = Mutex<[IPAddress: Int]>([:])

    public init() {}

    /// Counts one more for `address` unless it already holds `limit`;
    /// whether it was counted.
    public func claim(_ address: IPAddress, limit: Int) -> Bool {
        counts.withLock { counts in
            let held = counts[address, default: 0]
            guard held < limit else { return false }
            counts[address] = held + 1
            return true
        }
    }

    /// Gives back one claim of `address`.
    public func release(_ address: IPAddress) {
        counts.withLock { counts in
            guard let held = counts[address] else { return }
            counts[address] = held > 1 ? held - 1 : nil
        }
    }

    /// What `address` holds now.
    public func count(_ address: IPAddress) -> Int {
        counts.withLock { $0[address, default: 0] }
    }

    /// How many addresses hold something now.
    public var addresses: Int { counts.withLock { $0.count } }
}
