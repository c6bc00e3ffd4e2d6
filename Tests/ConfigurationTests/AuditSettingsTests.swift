import Testing
@testable import Configuration

@Suite("Audit settings: BFF_AUDIT_LOG, BFF_AUDIT_EMAIL")
struct AuditSettingsTests {
    @Test("the defaults: standard output, no e-mail address")
    func defaults() throws {
        let config = try loadConfig()
        #expect(config.auditLog == .standardOutput)
        #expect(config.auditEmail == false)
    }

    @Test("stdout, off and an absolute path are read; the e-mail switch too")
    func given() throws {
        #expect(try loadConfig(["BFF_AUDIT_LOG": "off"]).auditLog == .off)
        #expect(try loadConfig(["BFF_AUDIT_LOG": "stdout"]).auditLog == .standardOutput)
        let file = try loadConfig(["BFF_AUDIT_LOG": "/var/log/modgud-bff/audit.log", "BFF_AUDIT_EMAIL": "true"])
        #expect(file.auditLog == .file("/var/log/modgud-bff/audit.log") && file.auditEmail)
        #expect(file.redactedSummary().contains { $0 == ("BFF_AUDIT_LOG", "/var/log/modgud-bff/audit.log") })
    }

    @Test("a relative path, a directory or another word is a problem naming the setting", arguments: ["audit.log", "/", "/var/log/", "stderr"])
    func refused(_ value: String) throws {
        #expect(try loadProblems(["BFF_AUDIT_LOG": value]).map(\.setting) == ["BFF_AUDIT_LOG"])
    }
}
