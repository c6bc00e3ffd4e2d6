import Foundation
import TestSupport

/// Certificates for the TLS tests, made once per process with the `openssl`
/// command line (EC P-256): a CA, a server certificate it signs for
/// `localhost` and `127.0.0.1`, a client certificate it signs, and an
/// unrelated CA.
struct TLSCertificates: Sendable {
    let directory: String
    var ca: String { directory + "/ca.crt" }
    var serverCertificate: String { directory + "/server.crt" }
    var serverKey: String { directory + "/server.key" }
    var clientCertificate: String { directory + "/client.crt" }
    var clientKey: String { directory + "/client.key" }
    var otherCA: String { directory + "/other-ca.crt" }

    static func make() async throws -> TLSCertificates {
        try await made.value
    }

    private static let made = Task { () throws -> TLSCertificates in
        let directory = NSTemporaryDirectory() + "modgud-redis-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
             "-days", "2", "-subj", "/CN=modgud test CA"],
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "other-ca.key",
             "-out", "other-ca.crt", "-days", "2", "-subj", "/CN=another CA"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt",
             "-days", "2", "-extfile", "server.ext"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "client.key", "-out", "client.csr",
             "-subj", "/CN=modgud-bff"],
            ["x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "client.crt",
             "-days", "2"],
        ]
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        let failed = await blocking { () -> String? in
            for step in steps {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
                process.arguments = step
                process.currentDirectoryURL = URL(fileURLWithPath: directory)
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                do { try process.run() } catch { return "openssl could not start: \(error)" }
                process.waitUntilExit()
                if process.terminationStatus != 0 { return "openssl \(step[0]) failed" }
            }
            return nil
        }
        if let failed { throw TLSCertificateError(reason: failed) }
        return TLSCertificates(directory: directory)
    }

    /// redis-server arguments for a TLS port beside the plain one.
    func serverArguments(tlsPort: UInt16, requireClientCertificate: Bool) -> [String] {
        ["--tls-port", String(tlsPort), "--tls-cert-file", serverCertificate, "--tls-key-file", serverKey,
         "--tls-ca-cert-file", ca, "--tls-auth-clients", requireClientCertificate ? "yes" : "no"]
    }
}

struct TLSCertificateError: Error {
    let reason: String
}
