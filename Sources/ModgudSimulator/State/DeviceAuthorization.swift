/// A device authorization request (RFC 8628) from `POST /connect/device`,
/// kept under its device code until it is redeemed or expires.
struct DeviceAuthorization: Sendable {
    /// What the person at the verification page decided.
    enum Decision: Sendable {
        case pending
        case approved(DeviceApproval)
        case denied
    }

    /// The client that started it: the only one that may redeem it.
    var clientId: String
    var scopes: [String]
    var resources: [String]
    /// The display form (`WDJB-MJHT`).
    var userCode: String
    var expiresAt: Double
    /// Seconds the client must leave between polls; raised by `slow_down`.
    var interval: Int
    /// The previous poll at the token endpoint; nil before the first.
    var lastPollAt: Double?
    var decision: Decision = .pending
    /// Tokens were issued for it; every later redemption is refused.
    var redeemed = false

    /// Still waiting for a decision, and not expired.
    func isLive(now: Double) -> Bool {
        guard case .pending = decision else { return false }
        return !redeemed && expiresAt > now
    }
}

/// Who approved a device authorization, and the sign-in its tokens carry.
struct DeviceApproval: Sendable {
    var userId: String
    var proof: SignInProof
    /// A new session id for the device's sign-in (not the approver's own).
    var sid: String
}

/// What one poll of the token endpoint with a device code comes to.
enum DevicePoll: Sendable {
    /// Unknown, or started by another client.
    case unknown
    /// Already redeemed once.
    case redeemed
    case expired
    case denied
    /// Polled sooner than the interval after the previous poll; the new interval.
    case slowDown(interval: Int)
    case pending
    /// Approved: the code is spent now, tokens are owed.
    case approved(DeviceAuthorization, DeviceApproval)
}
