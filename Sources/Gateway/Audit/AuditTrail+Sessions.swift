import Core
import Observability
import Routing

/// Session and passkey events.
extension AuditTrail {
    /// `audit.session.ended`: `reason` (`logout`, `everywhere`, `removed`,
    /// `backchannel`, `replaced`, `refresh_refused`, `expired`,
    /// `token_rejected`), the user's `sub` when known, how many sessions
    /// the action ended, and for a refresh the outcome that ended it
    /// (`cause`).
    func sessionEnded(reason: String, subject: String?, sessions: Int = 1, cause: String? = nil, _ context: RequestContext,
                      address: IPAddress) {
        var fields: [(String, LogValue)] = [("reason", .string(reason))]
        if let subject { fields.append(("sub", .string(subject))) }
        fields.append(("sessions", .int(sessions)))
        if let cause { fields.append(("cause", .string(cause))) }
        record("audit.session.ended", context, address: address, fields)
    }

    /// `audit.passkey.enrolled` or `audit.passkey.removed` for the user `subject`.
    func passkey(enrolled: Bool, subject: String, _ context: RequestContext, address: IPAddress) {
        record(enrolled ? "audit.passkey.enrolled" : "audit.passkey.removed", context, address: address,
               [("sub", .string(subject))])
    }
}
