import Dispatch
import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// nginx in front of a gateway on loopback, configured from the repository's
/// own Deploy/nginx/modgud-bff.conf: its site-specific lines rewritten the
/// way Tests/Benchmarks/ratelimit_kit.py rewrites them (loopback port, a
/// self-signed certificate made with openssl for this run, a throwaway
/// static root, the gateway's port), everything else as operators get it.
///
/// nginx runs as a child of the test process (posix_spawn, `daemon off`,
/// its own prefix, pid file, logs and temp paths in a temporary directory),
/// and is stopped with SIGTERM. A missing nginx or openssl is an error,
/// never a skip: `Deploy/local/ensure-packages.sh test` installs both.
final class NginxFront: Sendable {
    /// The loopback port nginx serves TLS on.
    let port: UInt16
    /// The temporary prefix: configuration, certificate, static root, logs.
    let directory: String
    /// The self-signed certificate (PEM), for a client's CA file.
    let certificate: String
    /// What `GET /index.html` serves.
    let indexHTML: String
    private let pid: pid_t
    private let exit: ExitFlag

    /// The lines of Deploy/nginx/modgud-bff.conf a deployment changes (listed
    /// in its header); the same strings as `SITE_LINES` in ratelimit_kit.py.
    static let siteLines = ["server gateway:8080;", "listen 443 ssl http2;", "/etc/nginx/certs/modgud-bff.crt",
                            "/etc/nginx/certs/modgud-bff.key", "root /usr/share/nginx/html;"]

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let siteFile = repositoryRoot.appendingPathComponent("Deploy/nginx/modgud-bff.conf").path

    private init(port: UInt16, directory: String, certificate: String, indexHTML: String, pid: pid_t, exit: ExitFlag) {
        self.port = port
        self.directory = directory
        self.certificate = certificate
        self.indexHTML = indexHTML
        self.pid = pid
        self.exit = exit
    }

    deinit {
        // Never SIGKILL the master: its workers would outlive it.
        if !exit.isSet { Glibc.kill(pid, SIGTERM) }
    }

    /// The https origin nginx serves (`BFF_PUBLIC_ORIGIN` for the gateway).
    var origin: String { "https://localhost:\(port)" }

    /// nginx's error log (and its standard output and error) so far.
    var log: String {
        [directory + "/logs/error.log", directory + "/nginx.out"]
            .compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.joined(separator: "\n")
    }

    /// nginx's access log so far (the default `combined` format).
    var accessLog: String { (try? String(contentsOfFile: directory + "/logs/access.log", encoding: .utf8)) ?? "" }

    /// The access log once it contains `line`, or after a second: nginx
    /// writes a request's line after its answer has left, so a client can
    /// read the log before the line of its last answer is in.
    func accessLog(awaiting line: String) async -> String {
        let clock = ContinuousClock(), deadline = clock.now + .seconds(1)
        var text = accessLog
        while !text.contains(line), clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
            text = accessLog
        }
        return text
    }

    /// A free loopback port for nginx, chosen before the gateway starts so
    /// the gateway's public origin can name it.
    static func reservePort() throws -> UInt16 {
        guard let port = LoopbackPort.free() else { throw NginxFrontError.noFreePort }
        return port
    }

    /// Makes the certificate and the static root, writes the configuration
    /// (the site file rewritten, proxying to `gatewayPort`, or `site` in its
    /// place) and starts nginx on `port`; returns once nginx accepts
    /// connections there.
    static func start(port: UInt16, gatewayPort: UInt16, site: String? = nil) async throws -> NginxFront {
        let nginx = try locate("nginx", in: ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"])
        let openssl = try locate("openssl", in: ["/usr/bin", "/usr/local/bin"])
        let directory = NSTemporaryDirectory() + "modgud-nginx-\(UUID().uuidString)"
        let files = FileManager.default
        // Readable by nginx's workers (user nobody when the tests run as root).
        try files.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true,
                                  attributes: [.posixPermissions: 0o755])
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
        try files.createDirectory(atPath: directory + "/www", withIntermediateDirectories: true,
                                  attributes: [.posixPermissions: 0o755])
        let indexHTML = "<!doctype html><title>modgud-bff front end \(UUID().uuidString)</title>\n"
        try indexHTML.write(toFile: directory + "/www/index.html", atomically: true, encoding: .utf8)

        // A self-signed P-256 certificate for localhost and 127.0.0.1 (as the kit and the README make it).
        let certificate = directory + "/modgud-bff.crt", key = directory + "/modgud-bff.key"
        let status = try await run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                    "-nodes", "-days", "2", "-subj", "/CN=localhost",
                                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                    "-keyout", key, "-out", certificate], output: directory + "/openssl.out")
        guard status == 0, files.fileExists(atPath: certificate) else {
            throw NginxFrontError.certificate(log: (try? String(contentsOfFile: directory + "/openssl.out", encoding: .utf8)) ?? "")
        }

        let site = try site ?? siteConfiguration(port: port, gatewayPort: gatewayPort, certificate: certificate, key: key,
                                                 root: directory + "/www")
        try site.write(toFile: directory + "/modgud-bff.conf", atomically: true, encoding: .utf8)
        let main = """
            worker_processes 1;
            daemon off;
            master_process on;
            pid \(directory)/nginx.pid;
            error_log \(directory)/logs/error.log notice;
            events { worker_connections 256; }
            http {
                access_log \(directory)/logs/access.log;
                client_body_temp_path \(directory)/client_body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                include \(directory)/modgud-bff.conf;
            }

            """
        try main.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)

        let test = try await run([nginx, "-t", "-p", directory, "-c", directory + "/nginx.conf"], output: directory + "/nginx-t.out")
        guard test == 0 else {
            throw NginxFrontError.badConfiguration(log: (try? String(contentsOfFile: directory + "/nginx-t.out", encoding: .utf8)) ?? "")
        }

        let pid: pid_t
        do {
            pid = try ChildProcess.spawn([nginx, "-p", directory, "-c", directory + "/nginx.conf"],
                                         output: directory + "/nginx.out")
        } catch {
            throw NginxFrontError.spawnFailed(errno: error.errno)
        }
        let exit = ExitFlag()
        ChildProcess.reap(pid) { exit.set() }
        let front = NginxFront(port: port, directory: directory, certificate: certificate, indexHTML: indexHTML,
                               pid: pid, exit: exit)
        let deadline = ContinuousClock.now + .seconds(10)
        while !(await blocking { LoopbackPort.accepts(port) }) {
            if exit.isSet { throw NginxFrontError.exited(log: front.log) }
            if ContinuousClock.now >= deadline {
                await front.stop()
                throw NginxFrontError.notListening(log: front.log)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return front
    }

    /// SIGTERM (nginx's fast shutdown: the master stops its workers), then
    /// waits for the master to exit; SIGKILL only past `grace`.
    func stop(grace: Duration = .seconds(5)) async {
        guard !exit.isSet else { return }
        Glibc.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while !exit.isSet, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if !exit.isSet { Glibc.kill(pid, SIGKILL) }
        while !exit.isSet { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// Removes the temporary directory (after `stop`).
    func removeFiles() { try? FileManager.default.removeItem(atPath: directory) }

    /// Deploy/nginx/modgud-bff.conf with its site-specific lines set for this
    /// run; fails when one of them is no longer in the file.
    static func siteConfiguration(port: UInt16, gatewayPort: UInt16, certificate: String, key: String,
                                  root: String) throws -> String {
        var text = try String(contentsOfFile: siteFile, encoding: .utf8)
        let replacements = zip(siteLines, ["server 127.0.0.1:\(gatewayPort);", "listen 127.0.0.1:\(port) ssl http2;",
                                           certificate, key, "root \(root);"])
        for (old, new) in replacements {
            guard text.contains(old) else { throw NginxFrontError.siteLineMissing(old) }
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    // MARK: Helpers

    private static func locate(_ name: String, in directories: [String]) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        for directory in path + directories {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw NginxFrontError.notInstalled(name)
    }

    /// Runs `argv` to its end; its exit status (-1 when killed by a signal).
    private static func run(_ argv: [String], output: String) async throws -> Int32 {
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(argv, output: output)
        } catch {
            throw NginxFrontError.spawnFailed(errno: error.errno)
        }
        return await blocking {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS
            return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
        }
    }
}

private final class ExitFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}

enum NginxFrontError: Error, CustomStringConvertible {
    case notInstalled(String)
    case spawnFailed(errno: Int32)
    case certificate(log: String)
    case siteLineMissing(String)
    case badConfiguration(log: String)
    case exited(log: String)
    case notListening(log: String)
    case noFreePort

    var description: String {
        switch self {
        case .notInstalled(let name):
            "\(name) is not installed; the nginx front test needs it: run Deploy/local/ensure-packages.sh test "
                + "(installs nginx-light and openssl)"
        case .spawnFailed(let errno): "posix_spawn failed: errno \(errno)"
        case .certificate(let log): "openssl could not make the self-signed certificate:\n\(log)"
        case .siteLineMissing(let line):
            "Deploy/nginx/modgud-bff.conf no longer contains \(line.debugDescription); update NginxFront.siteLines "
                + "(and SITE_LINES in Tests/Benchmarks/ratelimit_kit.py)"
        case .badConfiguration(let log): "nginx -t refused the configuration:\n\(log)"
        case .exited(let log): "nginx exited at start:\n\(log)"
        case .notListening(let log): "nginx did not listen within 10 s:\n\(log)"
        case .noFreePort: "no free loopback port for nginx"
        }
    }
}
