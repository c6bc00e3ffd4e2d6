import Core

/// The secret half of one cross-device sign-in (RFC 8628 run by the
/// gateway): Modgud's device code and the pacing of its polls. Sealed in a
/// record found only with the starting browser's `__Host-bff-xd` cookie
/// and the request id together; never shown to any browser.
public struct CrossDeviceRequest: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// Modgud's `device_code`.
    public var deviceCode: Secret
    /// The least time between two polls of Modgud's token endpoint, in
    /// seconds: Modgud's `interval`, raised by 5 on every `slow_down`.
    public var intervalSeconds: Int
    /// When Modgud may be asked next (Unix ms). Moving it forward is how
    /// one poll, across every instance, claims the call to Modgud.
    public var nextPollAt: UInt64
    /// When the device code expires (Unix ms): Modgud's `expires_in` after the start.
    public var expiresAt: UInt64

    /// A request whose first poll may ask Modgud at `nextPollAt`.
    public init(deviceCode: Secret, intervalSeconds: Int, nextPollAt: UInt64, expiresAt: UInt64) {
        self.deviceCode = deviceCode
        self.intervalSeconds = intervalSeconds
        self.nextPollAt = nextPollAt
        self.expiresAt = expiresAt
    }

    /// Times only.
    public var description: String {
        "CrossDeviceRequest(intervalSeconds: \(intervalSeconds), nextPollAt: \(nextPollAt), expiresAt: \(expiresAt))"
    }

    /// No children: nothing leaks through `dump` or reflection.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// A `CrossDeviceRequest` as read from the store: its content, the version
/// a compare-and-set fences on, and where it lives.
public struct CrossDeviceRecord: Sendable, CustomStringConvertible {
    /// The content as read (or as last written by this value's holder).
    public internal(set) var request: CrossDeviceRequest
    /// The record's fencing version in the store.
    public internal(set) var version: UInt64
    /// The key material derived from the cookie and the request id.
    let handle: RecordHandle
    /// The context record's key material (from the request id alone).
    let contextHandle: RecordHandle
    /// When the record leaves the store (Unix ms): the expiry plus the grace.
    let retainedUntil: UInt64

    /// Whether the device code has expired at `now` (Unix ms).
    public func isExpired(at now: UInt64) -> Bool { request.expiresAt <= now }

    /// Times only.
    public var description: String { "CrossDeviceRecord(version: \(version), \(request))" }
}

/// The public half of one cross-device sign-in: what the approving
/// screen shows beside the code field. Found by the request id alone; it
/// holds no secret and no session id.
public struct CrossDeviceContext: Sendable, Hashable {
    /// When the sign-in was started (Unix ms).
    public var startedAt: UInt64
    /// When it expires (Unix ms).
    public var expiresAt: UInt64
    /// The starting browser, as `GET /bff/sessions` names one ("Chrome on macOS").
    public var device: String
    /// The starting browser's address as the gateway saw it.
    public var address: String

    /// A context with these facts.
    public init(startedAt: UInt64, expiresAt: UInt64, device: String, address: String) {
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.device = device
        self.address = address
    }
}
