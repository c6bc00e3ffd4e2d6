import Dispatch
import Foundation
import HTTPClient
import Synchronization
import Testing
import TestSupport

/// `openssl s_server` on a loopback port with a self-signed certificate
/// made for the test: its own `-www` page, or, given an answer, that
/// answer's bytes as they are to one connection (read from a file as its
/// standard input, which it relays once a client connected; at the file's
/// end it closes the connection). Both `openssl` runs are spawned and
/// reaped by `ChildProcess` (Foundation's `Process.waitUntilExit` was seen
/// to wait for ever on a child that had exited, with many children coming
/// and going in the test process). Blocking work runs on a Dispatch thread.
final class TLSServer: Sendable {
    let pid: pid_t
    let port: UInt16
    let certificate: String
    let directory: URL
    private let exited: ExitLatch

    private init(pid: pid_t, exited: ExitLatch, port: UInt16, certificate: String, directory: URL) {
        self.pid = pid
        self.exited = exited
        self.port = port
        self.certificate = certificate
        self.directory = directory
    }

    static func start(answering answer: String? = nil) async throws -> TLSServer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "tls-server.start").async {   // it blocks: never on the cooperative pool
                continuation.resume(with: Result { try startBlocking(answer) })
            }
        }
    }

    private static func startBlocking(_ answer: String?) throws -> TLSServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpclient-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        let cert = directory.appendingPathComponent("cert.pem").path
        let made = ExitLatch()
        let request = try ChildProcess.spawn(["/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                                              "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                                              "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        ChildProcess.reap(request) { made.set() }
        guard made.wait(seconds: 30), FileManager.default.fileExists(atPath: cert) else { throw TLSServerError.certificate }

        var input: String?
        if let answer {
            input = directory.appendingPathComponent("answer").path
            try Data(answer.utf8).write(to: URL(fileURLWithPath: input!))
        }
        let log = directory.appendingPathComponent("s_server.log").path
        let exited = ExitLatch()
        let server = try ChildProcess.spawn(["/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", cert, "-key", key]
                                                + (answer == nil ? ["-www"] : ["-naccept", "1"]), output: log, input: input)
        ChildProcess.reap(server) { exited.set() }
        // "ACCEPT 127.0.0.1:PORT" names the port it bound.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !exited.isSet {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT") }), text.hasSuffix("\n"),
               let port = line.split(separator: ":").last.flatMap({ UInt16($0.trimmingCharacters(in: .whitespaces)) }) {
                return TLSServer(pid: server, exited: exited, port: port, certificate: cert, directory: directory)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill(server, SIGKILL)
        throw TLSServerError.noPort
    }

    /// SIGKILL, then the reaper's word that it is gone (bounded).
    func stop() {
        kill(pid, SIGKILL)
        _ = exited.wait(seconds: 10)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Set once a child has been reaped; waited on by a blocking thread.
final class ExitLatch: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let flag = Mutex(false)

    func set() {
        flag.withLock { $0 = true }
        done.signal()
    }

    var isSet: Bool { flag.withLock { $0 } }

    /// Whether it was set within `seconds`.
    func wait(seconds: Double) -> Bool {
        isSet || done.wait(timeout: .now() + seconds) == .success
    }
}

enum TLSServerError: Error { case certificate, noPort }

@Suite(.serialized) struct TLSTests {
    @Test func selfSignedCertificateIsRefusedByDefault() async throws {
        let server = try await TLSServer.start()
        defer { server.stop() }
        try await withClient { client, _ in
            await #expect(throws: HTTPClientError.tls) {
                try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            }
        }
    }

    @Test func privateCAFileIsTrusted() async throws {
        let server = try await TLSServer.start()
        defer { server.stop() }
        var configuration = HTTPClientConfiguration()
        configuration.caFile = server.certificate
        try await withClient(configuration: configuration) { client, _ in
            for host in ["127.0.0.1", "localhost"] {
                let response = try await client.execute(HTTPClientRequest(url: "https://\(host):\(server.port)/"))
                #expect(response.status == .ok)
                #expect(String(decoding: response.body, as: UTF8.self).contains("<HTML>"))
            }
        }
    }

    @Test func missingCAFileIsATLSFailure() async throws {
        let server = try await TLSServer.start()
        defer { server.stop() }
        var configuration = HTTPClientConfiguration()
        configuration.caFile = "/nonexistent/ca.pem"
        try await withClient(configuration: configuration) { client, _ in
            await #expect(throws: HTTPClientError.tls) {
                try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            }
        }
    }

    @Test(arguments: HeadCase.bad)
    func badHeadOverTLSIsRefused(_ head: HeadCase) async throws {
        #expect(try await read(head.answer) == .failure(.invalidResponse))
    }

    @Test(arguments: HeadCase.good.filter { !$0.untilClose })
    func goodHeadOverTLSIsRead(_ head: HeadCase) async throws {
        #expect(try await read(head.answer) == .success(head.expected!))
    }

    /// What a GET to an `https` upstream answering `answer` returns.
    private func read(_ answer: String) async throws -> Result<HeadOutcome, HTTPClientError> {
        let server = try await TLSServer.start(answering: answer)
        defer { server.stop() }
        var configuration = HTTPClientConfiguration(connectTimeout: .seconds(2), timeout: .seconds(5))
        configuration.caFile = server.certificate
        return try await withClient(configuration: configuration) { client, _ in
            do throws(HTTPClientError) {
                let response = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
                return .success(HeadOutcome(status: response.status, headers: response.headers, body: response.body))
            } catch {
                return .failure(error)
            }
        }
    }
}
