import Core
import HTTP

/// The device-code grant at `/connect/token` (RFC 8628 §3.4–3.5).
extension SimulatorCore {
    /// Answers one poll: `invalid_grant` for a code that is unknown,
    /// another client's or already redeemed; then, for the code's own
    /// client, `expired_token`, `access_denied`, tokens once approved
    /// (minted as the code flow mints them: id_token with the approval's
    /// `sid`, a refresh token with `offline_access`, the audiences of the
    /// `resource`s the device asked for), else `slow_down` for a poll
    /// sooner than the interval after the previous one, else
    /// `authorization_pending`.
    func deviceCodeGrant(_ request: TokenRequest) -> HTTPResponse {
        guard let deviceCode = request.form.first("device_code"), !deviceCode.isEmpty else {
            return Reply.oauth("invalid_request", "The mandatory 'device_code' parameter is missing.")
        }
        let now = state.now()
        let poll = state.identity.withLock {
            $0.deviceAuthorizations.poll(deviceCode: deviceCode, clientId: request.client.id, now: now)
        }
        switch poll {
        case .unknown:
            state.stats.count("devicePolls", "invalid")
            return Reply.oauth("invalid_grant", "The specified device code is invalid.")
        case .redeemed:
            state.stats.count("devicePolls", "redeemed")
            return Reply.oauth("invalid_grant", "The specified device code has already been redeemed.")
        case .expired:
            state.stats.count("devicePolls", "expired")
            return Reply.oauth("expired_token", "The specified device code has expired.")
        case .denied:
            state.stats.count("devicePolls", "denied")
            return Reply.oauth("access_denied", "The authorization request was denied.")
        case .slowDown(let interval):
            state.stats.count("devicePolls", "slowDown")
            return Reply.oauth("slow_down", "The device code was polled too soon; wait \(interval) seconds between polls.")
        case .pending:
            state.stats.count("devicePolls", "pending")
            return Reply.oauth("authorization_pending", "The authorization request is still pending.")
        case .approved(let record, let approval):
            state.stats.count("devicePolls", "approved")
            return issueUserTokens(userId: approval.userId, proof: approval.proof, client: request.client,
                                   scopes: record.scopes, resources: record.resources, config: request.config,
                                   sid: approval.sid)
        }
    }
}
