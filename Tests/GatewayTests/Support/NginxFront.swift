import Dispatch
import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// nginx in front of a gateway, run from the repository's own
/// Deploy/nginx/modgud-bff.conf (a complete nginx.conf): only its ports,
/// paths and certificates rewritten (a loopback port, a self-signed
/// certificate made with openssl for this run, a throwaway static root,
/// pid, log and temp paths in a temporary directory, the gateway's socket
/// or port), everything else as operators get it. The gateway is reached
/// either way the file offers: its Unix socket (the default) or TCP with
/// `proxy_bind 127.0.0.2` (the file's commented variant, switched on).
///
/// nginx runs as a child of the test process (posix_spawn, `-g 'daemon
/// off;'`, its own prefix), and is stopped with SIGQUIT, gracefully, as
/// the operations guide says. A missing nginx or openssl is an error,
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

    /// How nginx reaches the gateway: the file's two ways.
    enum Gateway: Sendable {
        /// The gateway's Unix socket at this path (the file's default).
        case socket(String)
        /// TCP to `127.0.0.1:port`, nginx connecting from 127.0.0.2.
        case proxyBind(port: UInt16)
    }

    /// The lines of Deploy/nginx/modgud-bff.conf a deployment changes
    /// (listed in its header), then the paths of Debian's layout.
    static let siteLines = ["server unix:/run/modgud-bff/public.sock;", "listen 443 ssl http2;",
                            "/etc/nginx/certs/modgud-bff.crt", "/etc/nginx/certs/modgud-bff.key",
                            "root /usr/share/nginx/html;", "pid /run/nginx.pid;", "/var/log/nginx/", "/var/lib/nginx/"]
    /// The TCP variant's commented lines.
    static let tcpLines = ["#server 127.0.0.1:8080;", "#proxy_bind 127.0.0.2;"]

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
        if !exit.isSet { Glibc.kill(pid, SIGQUIT) }
    }

    /// The https origin nginx serves (`BFF_PUBLIC_ORIGIN` for the gateway).
    var origin: String { "https://localhost:\(port)" }

    /// nginx's error log (and its standard output and error) so far.
    var log: String {
        [directory + "/logs/error.log", directory + "/nginx.out"]
            .compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.joined(separator: "\n")
    }

    /// nginx's access log so far (the file's `modgud` format).
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

    /// nginx on `port` from the shipped file, proxying to `gateway`.
    static func start(port: UInt16, gateway: Gateway) async throws -> NginxFront {
        try await launch(port: port) { certificate, key, directory in
            try siteConfiguration(port: port, gateway: gateway, certificate: certificate, key: key, directory: directory)
        }
    }

    /// nginx with `site`, server blocks of a test's own, in a minimal main
    /// context.
    static func start(port: UInt16, site: String) async throws -> NginxFront {
        try await launch(port: port) { _, _, directory in minimal(site: site, directory: directory) }
    }

    /// Makes the certificate and the static root, writes the configuration
    /// `configure` returns (given the certificate, key and directory) and
    /// starts nginx; returns once nginx accepts connections on `port`.
    private static func launch(port: UInt16,
                               configure: (String, String, String) throws -> String) async throws -> NginxFront {
        let nginx = try locate("nginx", in: ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"])
        let openssl = try locate("openssl", in: ["/usr/bin", "/usr/local/bin"])
        let directory = NSTemporaryDirectory() + "modgud-nginx-\(UUID().uuidString)"
        let files = FileManager.default
        // Readable by nginx's workers (www-data, or nobody for a test's own
        // site, when the tests run as root).
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

        let configuration = try configure(certificate, key, directory)
        try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)

        let test = try await run([nginx, "-t", "-p", directory, "-c", directory + "/nginx.conf"], output: directory + "/nginx-t.out")
        guard test == 0 else {
            throw NginxFrontError.badConfiguration(log: (try? String(contentsOfFile: directory + "/nginx-t.out", encoding: .utf8)) ?? "")
        }

        let pid: pid_t
        do {
            pid = try ChildProcess.spawn([nginx, "-p", directory, "-c", directory + "/nginx.conf", "-g", "daemon off;"],
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

    /// SIGQUIT (nginx's graceful shutdown: requests in flight finish), then
    /// waits for the master to exit; SIGKILL only past `grace`.
    func stop(grace: Duration = .seconds(5)) async {
        guard !exit.isSet else { return }
        Glibc.kill(pid, SIGQUIT)
        let deadline = ContinuousClock.now + grace
        while !exit.isSet, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if !exit.isSet { Glibc.kill(pid, SIGKILL) }
        while !exit.isSet { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// Removes the temporary directory (after `stop`).
    func removeFiles() { try? FileManager.default.removeItem(atPath: directory) }

    /// Deploy/nginx/modgud-bff.conf with its site-specific lines and paths
    /// set for this run, and for `.proxyBind` its TCP variant switched on
    /// as the file says (the socket line commented out, the two TCP lines
    /// uncommented); fails when one of them is no longer in the file.
    static func siteConfiguration(port: UInt16, gateway: Gateway, certificate: String, key: String,
                                  directory: String) throws -> String {
        var text = try String(contentsOfFile: siteFile, encoding: .utf8)
        let upstream: String
        var replacements: [(String, String)] = []
        switch gateway {
        case .socket(let path):
            upstream = "server unix:\(path);"
        case .proxyBind(let gatewayPort):
            upstream = "#" + siteLines[0]
            replacements = zip(tcpLines, ["server 127.0.0.1:\(gatewayPort);", "proxy_bind 127.0.0.2;"]).map { ($0, $1) }
        }
        replacements = zip(siteLines, [upstream, "listen 127.0.0.1:\(port) ssl http2;", certificate, key,
                                       "root \(directory)/www;", "pid \(directory)/nginx.pid;", directory + "/logs/",
                                       directory + "/"]).map { ($0, $1) } + replacements
        for (old, new) in replacements {
            guard text.contains(old) else { throw NginxFrontError.siteLineMissing(old) }
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    /// `site` in the `http` context of a main configuration of the test's own.
    static func minimal(site: String, directory: String) -> String {
        """
        worker_processes 1;
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
        \(site)
        }

        """
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
