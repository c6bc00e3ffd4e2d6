import Dispatch
import Foundation
import HTTPClient
import Testing

/// `openssl s_server` on a loopback port with a self-signed certificate
/// made for the test: its own `-www` page, or, given an answer, that
/// answer's bytes as they are to one connection (written to its standard
/// input, which it relays once a client connected, and closed, after
/// which it closes the connection). Blocking process work runs on a
/// Dispatch thread.
final class TLSServer: Sendable {
    let process: Process
    let output: Pipe
    let port: UInt16
    let certificate: String
    let directory: URL

    private init(process: Process, output: Pipe, port: UInt16, certificate: String, directory: URL) {
        self.process = process
        self.output = output
        self.port = port
        self.certificate = certificate
        self.directory = directory
    }

    static func start(answering answer: String? = nil) async throws -> TLSServer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try startBlocking(answer) })
            }
        }
    }

    private static func startBlocking(_ answer: String?) throws -> TLSServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpclient-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        let cert = directory.appendingPathComponent("cert.pem").path
        let request = Process()
        request.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        request.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                             "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                             "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        request.standardError = FileHandle.nullDevice
        try request.run()
        request.waitUntilExit()
        guard request.terminationStatus == 0 else { throw TLSServerError.certificate }

        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        server.arguments = ["s_server", "-accept", "127.0.0.1:0", "-cert", cert, "-key", key]
            + (answer == nil ? ["-www"] : ["-naccept", "1"])
        let output = Pipe()
        server.standardOutput = output
        server.standardError = output
        let input = Pipe()
        server.standardInput = answer == nil ? FileHandle.nullDevice : input
        try server.run()
        if let answer {
            input.fileHandleForWriting.write(Data(answer.utf8))
            try input.fileHandleForWriting.close()
        }
        // "ACCEPT 127.0.0.1:PORT" names the port it bound.
        var text = ""
        while !text.contains("\n") || !text.contains("ACCEPT") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT") }),
              let port = line.split(separator: ":").last.flatMap({ UInt16($0.trimmingCharacters(in: .whitespaces)) }) else {
            kill(server.processIdentifier, SIGKILL)
            throw TLSServerError.noPort
        }
        // Keep draining its log so a full pipe never blocks it.
        output.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        return TLSServer(process: server, output: output, port: port, certificate: cert, directory: directory)
    }

    /// SIGKILL: a child spawned by Foundation here inherits a signal mask
    /// that blocks SIGTERM. Waiting for it is then immediate.
    func stop() {
        output.fileHandleForReading.readabilityHandler = nil
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
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
