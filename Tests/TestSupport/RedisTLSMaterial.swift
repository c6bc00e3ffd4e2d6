import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Certificates and keys for TLS tests, made with the `openssl` command
/// line (EC P-256 keys) once per process in a temporary directory that is
/// removed when the process exits: a CA, a server certificate it signed
/// (subjectAltName `DNS:localhost, IP:127.0.0.1, IP:::1`), a client
/// certificate it signed, and a second, unrelated CA for "wrong CA" tests.
/// Every property is a PEM file's path.
public struct RedisTLSMaterial: Sendable {
    /// Debian's `openssl` command (package `openssl`, installed when missing).
    public static let binary = "/usr/bin/openssl"

    /// The directory holding every file.
    public let directory: String
    /// The CA's self-signed certificate and its key.
    public let caCertificate: String, caKey: String
    /// The server's certificate (signed by the CA) and its key.
    public let serverCertificate: String, serverKey: String
    /// The client's certificate (signed by the CA, `clientAuth`) and its key.
    public let clientCertificate: String, clientKey: String
    /// A second CA's self-signed certificate and key; it signed nothing here.
    public let otherCACertificate: String, otherCAKey: String

    private static let made = Mutex<Task<RedisTLSMaterial, any Error>?>(nil)

    /// The material of this process, made on the first call.
    public static func shared() async throws -> RedisTLSMaterial {
        let task = made.withLock { task in
            if let task { return task }
            let made = Task { try await TestSupport.blocking { Result { try make() } }.get() }
            task = made
            return made
        }
        return try await task.value
    }

    private init(directory: String) {
        self.directory = directory
        (caCertificate, caKey) = (directory + "/ca.crt", directory + "/ca.key")
        (serverCertificate, serverKey) = (directory + "/server.crt", directory + "/server.key")
        (clientCertificate, clientKey) = (directory + "/client.crt", directory + "/client.key")
        (otherCACertificate, otherCAKey) = (directory + "/other-ca.crt", directory + "/other-ca.key")
    }

    /// Runs the `openssl` commands (blocking).
    private static func make() throws -> RedisTLSMaterial {
        try ensureInstalled()
        let directory = NSTemporaryDirectory() + "modgud-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        removeAtExit(directory)
        let material = RedisTLSMaterial(directory: directory)
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-noenc"]
        for (certificate, key, name) in [(material.caCertificate, material.caKey, "modgud test CA"),
                                         (material.otherCACertificate, material.otherCAKey, "modgud unrelated CA")] {
            try run(["req", "-x509", "-new"] + newKey + ["-keyout", key, "-out", certificate, "-days", "3650", "-subj", "/CN=\(name)"])
        }
        let leaves = [(material.serverCertificate, material.serverKey, "localhost", "2",
                       "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n"),
                      (material.clientCertificate, material.clientKey, "modgud test client", "3",
                       "extendedKeyUsage=clientAuth\n")]
        for (certificate, key, name, serial, extensions) in leaves {
            let request = certificate + ".csr", extensionFile = certificate + ".ext"
            try extensions.write(toFile: extensionFile, atomically: true, encoding: .utf8)
            try run(["req", "-new"] + newKey + ["-keyout", key, "-out", request, "-subj", "/CN=\(name)"])
            try run(["x509", "-req", "-in", request, "-CA", material.caCertificate, "-CAkey", material.caKey,
                     "-set_serial", serial, "-days", "3650", "-extfile", extensionFile, "-out", certificate])
        }
        return material
    }

    private static func run(_ arguments: [String]) throws {
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn([binary] + arguments)
        } catch {
            throw RedisTLSMaterialError.opensslFailed(arguments: arguments, status: -1)
        }
        let status = ChildProcess.waitForExit(pid)
        guard status == 0 else { throw RedisTLSMaterialError.opensslFailed(arguments: arguments, status: status) }
    }

    private static func ensureInstalled() throws {
        if FileManager.default.isExecutableFile(atPath: binary) { return }
        try AptGet.install("openssl")
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw RedisTLSMaterialError.notInstalled }
    }

    private static let directoryToRemove = Mutex<String?>(nil)

    /// Removes `directory` when the process exits (the material lives as
    /// long as the process).
    private static func removeAtExit(_ directory: String) {
        directoryToRemove.withLock { $0 = directory }
        atexit {
            if let directory = RedisTLSMaterial.directoryToRemove.withLock({ $0 }) {
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
    }
}

/// Making the TLS material failed.
public enum RedisTLSMaterialError: Error {
    case notInstalled
    case opensslFailed(arguments: [String], status: Int32)
}
