import Core
import HTTP
import Observability
import Routing

/// The gateway's audit events (Docs/operations.md, "Audit trail"): each
/// written once, as the action happens, to the audit stream
/// (`BFF_AUDIT_LOG`), and sign-ins counted in `bff_signins_total` by the
/// same call. No field holds a secret; an e-mail address only with
/// `BFF_AUDIT_EMAIL=true`.
public struct AuditTrail: Sendable {
    let log: AuditLog
    let signIns: Counter
    /// Whether sign-in lines name the e-mail address (`BFF_AUDIT_EMAIL`).
    let namesEmail: Bool

    /// A trail written to `log`, counting sign-ins in `metrics`.
    public init(log: AuditLog, metrics: MetricsRegistry, namesEmail: Bool) {
        self.log = log
        self.namesEmail = namesEmail
        signIns = metrics.counter("bff_signins_total", help: "Sign-ins finished, by method and outcome.",
                                  labels: ["method", "outcome"])
    }

    /// A trail that writes nothing and counts in a registry of its own
    /// (components built without a gateway).
    public static var off: AuditTrail { AuditTrail(log: .off, metrics: MetricsRegistry(), namesEmail: false) }

    /// Writes `event` for `request` from `address`.
    func record(_ event: String, _ context: RequestContext, address: IPAddress, _ fields: [(String, LogValue)] = []) {
        log.record(event, requestID: context.requestID, traceID: context.trace.traceID, address: address.description, fields)
    }

    /// Writes `event` for work no request started (the hand-off sweep): a
    /// trace of its own, and `requestId` and `address` empty.
    func recordBackground(_ event: String, _ fields: [(String, LogValue)] = []) {
        log.record(event, requestID: "", traceID: SpanIDs.startedTrace().traceID, address: "", fields)
    }

    /// `audit.signin.succeeded` and `bff_signins_total{method,outcome="succeeded"}`.
    func signInSucceeded(method: String, subject: String, email: String? = nil, _ context: RequestContext,
                         address: IPAddress) {
        signIns.increment([method, "succeeded"])
        record("audit.signin.succeeded", context, address: address,
               [("method", .string(method)), ("sub", .string(subject))] + emailField(email))
    }

    /// `audit.signin.failed` (`reason`: a stable code) and
    /// `bff_signins_total{method,outcome="failed"}`.
    func signInFailed(method: String, reason: String, subject: String? = nil, email: String? = nil,
                      _ context: RequestContext, address: IPAddress) {
        signIns.increment([method, "failed"])
        var fields: [(String, LogValue)] = [("method", .string(method))]
        if let subject { fields.append(("sub", .string(subject))) }
        fields.append(("reason", .string(reason)))
        record("audit.signin.failed", context, address: address, fields + emailField(email))
    }

    private func emailField(_ email: String?) -> [(String, LogValue)] {
        guard namesEmail, let email else { return [] }
        return [("email", .string(email))]
    }
}
