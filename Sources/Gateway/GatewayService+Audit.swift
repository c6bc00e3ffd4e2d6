import Configuration
import Observability
import System

extension GatewayService {
    /// The audit stream `BFF_AUDIT_LOG` names; a file is opened for append
    /// here, and a failure to open it stops the start.
    static func auditLog(_ config: GatewayConfig) throws(SystemError) -> AuditLog {
        switch config.auditLog {
        case .standardOutput: AuditLog(sink: .standardOutput)
        case .file(let path): AuditLog(sink: try LogSink.appending(toFile: path))
        case .off: .off
        }
    }
}
