import Core
import Crypto
@testable import Redis
import System
import Testing
import TestSupport

/// `rediss://`: the wire's TLS against a real redis-server with a TLS port.
@Suite("TLS to Redis", .serialized)
struct RedisTLSTests {
    @Test("with the CA, commands, a 1 MB value and pub/sub work over TLS, by name and by IP")
    func commandsOverTLS() async throws {
        try await withTLSServer { server, tlsPort, certificates in
            for host in ["localhost", "127.0.0.1"] {
                let security = WireSecurity(configuration: try TLSClientConfiguration(caFile: certificates.caCertificate))
                try await withClient(host: host, port: tlsPort, security: security) { client in
                    #expect(client.isReady, "not ready over TLS to \(host): \(client.lastFailureReason ?? "-")")
                    let big = (0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31) }
                    try await client.set(b("big"), big)
                    #expect(try await client.get(b("big")) == big)
                    let replies = try await client.send(batch: (0..<100).map { _ in [b("INCR"), b("n-\(host)")] })
                    #expect(replies.last == .integer(100))
                }
            }
            let group = try EventLoopGroup(loops: 1, name: "tls-pubsub")
            let subscriber = RedisSubscriber(configuration: RedisConfiguration(
                host: "localhost", port: Int(tlsPort),
                security: WireSecurity(configuration: try TLSClientConfiguration(caFile: certificates.caCertificate))), loop: group.loops[0])
            subscriber.start()
            #expect(await subscriber.waitUntilReady(timeout: .seconds(5)))
            let stream = await subscriber.subscribe(b("tls-channel"))
            _ = try await server.publish(b("tls-channel"), b("hello"))
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == b("hello"))
            await subscriber.close()
            group.shutdown()
        }
    }

    @Test("a certificate from another CA, the system's store, or another name is refused and the failure says why")
    func verificationFailures() async throws {
        try await withTLSServer { _, tlsPort, certificates in
            let cases: [(String, WireSecurity)] = [
                ("another CA", WireSecurity(configuration: try TLSClientConfiguration(caFile: certificates.otherCACertificate))),
                ("the system's store", WireSecurity(configuration: try TLSClientConfiguration())),
                ("another name", WireSecurity(configuration: try TLSClientConfiguration(caFile: certificates.caCertificate), serverName: "redis.example")),
            ]
            for (label, security) in cases {
                try await withClient(host: "localhost", port: tlsPort, security: security, ready: false) { client in
                    let failure = await eventually { client.connections[0].lastFailure != nil }
                    #expect(failure && !client.isReady, "\(label): connected")
                    guard case .tls(let reason)? = client.connections[0].lastFailure else {
                        Issue.record("\(label): \(client.lastFailureReason ?? "no failure")")
                        return
                    }
                    #expect(reason.contains("certificate verify failed"), "\(label): \(reason)")
                }
            }
        }
    }

    @Test("a server that asks for a client certificate accepts ours and refuses a client without one")
    func clientCertificate() async throws {
        try await withTLSServer(requireClientCertificate: true) { _, tlsPort, certificates in
            let withCertificate = WireSecurity(configuration: try TLSClientConfiguration(
                caFile: certificates.caCertificate, certificateFile: certificates.clientCertificate, keyFile: certificates.clientKey))
            try await withClient(host: "localhost", port: tlsPort, security: withCertificate) { client in
                #expect(client.isReady, "\(client.lastFailureReason ?? "-")")
                try await client.ping()
            }
            let without = WireSecurity(configuration: try TLSClientConfiguration(caFile: certificates.caCertificate))
            try await withClient(host: "localhost", port: tlsPort, security: without, ready: false) { client in
                #expect(await eventually { client.connections[0].lastFailure != nil })
                try await Task.sleep(for: .milliseconds(300))
                #expect(!client.isReady, "connected without a client certificate")
            }
        }
    }

    @Test("a CA file that does not exist or a key that does not match is refused when loaded, naming the step")
    func badFiles() async throws {
        let certificates = try await RedisTLSMaterial.shared()
        #expect(throws: CryptoError.self) { try TLSClientConfiguration(caFile: certificates.directory + "/missing.crt") }
        do {
            _ = try TLSClientConfiguration(caFile: certificates.caCertificate, certificateFile: certificates.clientCertificate,
                                           keyFile: certificates.serverKey)
            Issue.record("a certificate with another's key was accepted")
        } catch {
            #expect(error.description.contains("SSL_CTX"), "\(error)")
            #expect(!error.description.contains("BEGIN"), "the error quotes the file")
        }
    }

    // MARK: Helpers

    private func withTLSServer(requireClientCertificate: Bool = false,
                               _ body: (RedisClient, UInt16, RedisTLSMaterial) async throws -> Void) async throws {
        let certificates = try await RedisTLSMaterial.shared()
        let server = try await RedisServer.start(tls: certificates, requireClientCertificate: requireClientCertificate)
        let tlsPort = try #require(server.tlsPort)
        let group = try EventLoopGroup(loops: 1, name: "tls-plain")
        let plain = RedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: Int(server.port)), loops: group.loops)
        plain.start()
        _ = await plain.waitUntilReady(timeout: .seconds(5))
        do {
            try await body(plain, tlsPort, certificates)
        } catch {
            await plain.close()
            group.shutdown()
            await server.kill()
            throw error
        }
        await plain.close()
        group.shutdown()
        await server.kill()
    }

    private func withClient(host: String, port: UInt16, security: WireSecurity, ready: Bool = true,
                            _ body: (RedisClient) async throws -> Void) async throws {
        let group = try EventLoopGroup(loops: 1, name: "tls-test")
        let client = RedisClient(configuration: RedisConfiguration(host: host, port: Int(port), security: security,
                                                                   reconnectBackoff: .milliseconds(50) ... .milliseconds(200)),
                                 loops: group.loops)
        client.start()
        if ready { _ = await client.waitUntilReady(timeout: .seconds(5)) }
        do {
            try await body(client)
        } catch {
            await client.close()
            group.shutdown()
            throw error
        }
        await client.close()
        group.shutdown()
    }
}
