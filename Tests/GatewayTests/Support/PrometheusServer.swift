import Core
import Foundation
import HTTPCodec
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real Prometheus on loopback for one test, started from the
/// repository's Deploy/prometheus/prometheus.yml with only its site lines
/// changed (the scrape and evaluation interval, the target, the rules
/// file's path), its data in a temporary directory of its own. A missing
/// `prometheus` or `promtool` is an error, never a skip:
/// `Deploy/local/ensure-packages.sh test` installs Debian's package.
final class PrometheusServer: Sendable {
    let port: UInt16
    let directory: String
    private let pid: pid_t

    static let deployDirectory = NginxFront.repositoryRoot.appendingPathComponent("Deploy/prometheus").path

    /// The lines of Deploy/prometheus/prometheus.yml a test run changes.
    static let siteLines = ["scrape_interval: 15s", "evaluation_interval: 15s", #"["127.0.0.1:9090"]"#, "  - alerts.yml"]

    private init(port: UInt16, directory: String, pid: pid_t) {
        self.port = port
        self.directory = directory
        self.pid = pid
    }

    /// Starts Prometheus scraping `target` (`host:port`) every second and
    /// waits until it answers `/-/ready`.
    static func start(scraping target: String) async throws -> PrometheusServer {
        let binary = try locate("prometheus")
        let directory = NSTemporaryDirectory() + "modgud-prometheus-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        var text = try String(contentsOfFile: deployDirectory + "/prometheus.yml", encoding: .utf8)
        for (old, new) in zip(siteLines, ["scrape_interval: 1s", "evaluation_interval: 1s", #"["\#(target)"]"#,
                                          "  - \(deployDirectory)/alerts.yml"]) {
            guard text.contains(old) else { throw PrometheusError.siteLineMissing(old) }
            text = text.replacingOccurrences(of: old, with: new)
        }
        try text.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        guard let port = LoopbackPort.free() else { throw PrometheusError.noPort }
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn([binary, "--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
                                          "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn"],
                                         output: directory + "/prometheus.log")
        } catch {
            throw PrometheusError.spawnFailed(errno: error.errno)
        }
        let server = PrometheusServer(port: port, directory: directory, pid: pid)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let ready = try? await LoopbackCall.send(port: port, "GET", "/-/ready", timeout: 2), ready.status == 200 { return server }
            try await Task.sleep(for: .milliseconds(100))
        }
        await server.stop()
        throw PrometheusError.notReady(log: server.log)
    }

    /// Prometheus's own log so far.
    var log: String { (try? String(contentsOfFile: directory + "/prometheus.log", encoding: .utf8)) ?? "" }

    /// The value of an instant query whose answer is one sample, or nil
    /// while it has none.
    func value(_ query: String) async throws -> Double? {
        let answer = try await LoopbackCall.send(port: port, "GET", "/api/v1/query?query=" + FormURLEncoded.encodeComponent(query),
                                                 timeout: 5)
        guard answer.status == 200, let json = try? JSON.parse(answer.body),
              let result = json["data"]?["result"], case .array(let samples) = result, samples.count == 1,
              case .array(let pair)? = samples[0]["value"], pair.count == 2 else { return nil }
        return pair[1].stringValue.flatMap(Double.init)
    }

    /// Polls `query` until it equals `expected` or `within` passes; the
    /// last value seen.
    func waitFor(_ query: String, equals expected: Double, within: Duration = .seconds(20)) async throws -> Double? {
        let deadline = ContinuousClock.now + within
        var last: Double?
        while ContinuousClock.now < deadline {
            last = try await value(query)
            if last == expected { return last }
            try await Task.sleep(for: .milliseconds(250))
        }
        return last
    }

    /// The names of the alerting rules Prometheus loaded.
    func ruleNames() async throws -> [String] {
        let answer = try await LoopbackCall.send(port: port, "GET", "/api/v1/rules", timeout: 5)
        guard let json = try? JSON.parse(answer.body), case .array(let groups)? = json["data"]?["groups"] else { return [] }
        return groups.flatMap { group -> [String] in
            guard case .array(let rules)? = group["rules"] else { return [] }
            return rules.compactMap { $0["name"]?.stringValue }
        }
    }

    /// SIGTERM, then waits for it to exit; removes its files.
    func stop() async {
        kill(pid, SIGTERM)
        let pid = self.pid
        _ = await blocking { ChildProcess.waitForExit(pid) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `promtool` with `arguments`; its exit status and output.
    static func promtool(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let binary = try locate("promtool")
        let output = NSTemporaryDirectory() + "modgud-promtool-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn([binary] + arguments, output: output)
        } catch {
            throw PrometheusError.spawnFailed(errno: error.errno)
        }
        let status = await blocking { ChildProcess.waitForExit(pid) }
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    private static func locate(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        for directory in path + ["/usr/bin", "/usr/local/bin"] {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw PrometheusError.notInstalled(name)
    }
}

enum PrometheusError: Error, CustomStringConvertible {
    case notInstalled(String)
    case spawnFailed(errno: Int32)
    case siteLineMissing(String)
    case noPort
    case notReady(log: String)

    var description: String {
        switch self {
        case .notInstalled(let name): "\(name) is not installed (Deploy/local/ensure-packages.sh test installs Debian's prometheus)"
        case .spawnFailed(let errno): "posix_spawn failed: errno \(errno)"
        case .siteLineMissing(let line): "Deploy/prometheus/prometheus.yml no longer has the line \(line)"
        case .noPort: "no free loopback port"
        case .notReady(let log): "Prometheus did not become ready:\n\(log)"
        }
    }
}
