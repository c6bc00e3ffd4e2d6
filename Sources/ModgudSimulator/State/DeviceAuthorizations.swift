/// The device authorizations in flight, by device code, with the index
/// from user code to device code that the verification page looks codes
/// up in. Part of `IdentityStore`, so it changes under the same lock.
struct DeviceAuthorizations: Sendable {
    private(set) var byDeviceCode: [String: DeviceAuthorization] = [:]
    /// Canonical user code → device code; only a live entry counts.
    private var deviceCodes: [String: String] = [:]

    /// Starts an authorization: a new device code (256 random bits) and a
    /// user code no live authorization holds.
    mutating func start(clientId: String, scopes: [String], resources: [String], lifetime: Int, interval: Int,
                        now: Double) -> (deviceCode: String, record: DeviceAuthorization) {
        var userCode = DeviceUserCode.make()
        while live(userCode: userCode, now: now) != nil { userCode = DeviceUserCode.make() }
        let deviceCode = Identifiers.token()
        let record = DeviceAuthorization(clientId: clientId, scopes: scopes, resources: resources, userCode: userCode,
                                         expiresAt: now + Double(lifetime), interval: interval)
        byDeviceCode[deviceCode] = record
        deviceCodes[DeviceUserCode.normalize(userCode)!] = deviceCode
        return (deviceCode, record)
    }

    /// The live authorization a typed user code names, or nil (malformed,
    /// unknown, expired, decided or redeemed).
    func live(userCode typed: String, now: Double) -> DeviceAuthorization? {
        guard let code = DeviceUserCode.normalize(typed), let deviceCode = deviceCodes[code],
              let record = byDeviceCode[deviceCode], record.isLive(now: now) else { return nil }
        return record
    }

    /// Records the decision for a live user code; false (and nothing
    /// changed) when the code is not live.
    mutating func decide(userCode typed: String, _ decision: DeviceAuthorization.Decision, now: Double) -> Bool {
        guard live(userCode: typed, now: now) != nil, let code = DeviceUserCode.normalize(typed),
              let deviceCode = deviceCodes[code] else { return false }
        byDeviceCode[deviceCode]!.decision = decision
        deviceCodes[code] = nil
        return true
    }

    /// One poll by `clientId`, answered in RFC 8628 §3.5's terms. An
    /// approved code is spent by the poll that gets its tokens; a pending
    /// one polled sooner than its interval after the previous poll has
    /// that interval raised by 5 seconds. Every poll of a pending code
    /// counts as its previous poll for the next.
    mutating func poll(deviceCode: String, clientId: String, now: Double) -> DevicePoll {
        guard var record = byDeviceCode[deviceCode], record.clientId == clientId else { return .unknown }
        guard !record.redeemed else { return .redeemed }
        guard record.expiresAt > now else { return .expired }
        switch record.decision {
        case .denied:
            return .denied
        case .approved(let approval):
            byDeviceCode[deviceCode]!.redeemed = true
            return .approved(record, approval)
        case .pending:
            defer { byDeviceCode[deviceCode] = record }
            let early = record.lastPollAt.map { now - $0 < Double(record.interval) } ?? false
            record.lastPollAt = now
            guard early else { return .pending }
            record.interval += Self.slowDownStep
            return .slowDown(interval: record.interval)
        }
    }

    /// RFC 8628 §3.5: the interval increase a `slow_down` means.
    static let slowDownStep = 5

    /// Drops what has expired (the store's periodic sweep).
    mutating func sweep(now: Double) {
        byDeviceCode = byDeviceCode.filter { $0.value.expiresAt > now }
        deviceCodes = deviceCodes.filter { byDeviceCode[$0.value] != nil }
    }
}
