import Foundation
import TestSupport
import Testing

/// The Redis topologies of TestSupport, checked with `redis-cli` and
/// control calls (slow: real processes, a real failover).
@Suite("Fixtures: TLS server, Sentinel group, Cluster", .serialized)
struct FixtureTests {
    @Test("the TLS server answers on its TLS port to a client trusting its CA, and not to one trusting another CA")
    func tlsServer() async throws {
        let clock = ContinuousClock()
        var started = clock.now
        let tls = try await RedisTLSMaterial.shared()
        print("fixture timing: TLS material in \(clock.now - started)")
        started = clock.now
        let server = try await RedisServer.start(tls: tls)
        print("fixture timing: TLS server ready in \(clock.now - started)")
        let port = try #require(server.tlsPort)
        let trusted = await redisCLI(["--tls", "--cacert", tls.caCertificate, "-p", String(port), "PING"])
        #expect(trusted.output.contains("PONG"), "\(trusted)")
        let wrongCA = await redisCLI(["--tls", "--cacert", tls.otherCACertificate, "-p", String(port), "PING"])
        #expect(!wrongCA.output.contains("PONG"), "\(wrongCA)")
        let plain = await redisCLI(["-p", String(port), "PING"])
        #expect(!plain.output.contains("PONG"), "\(plain)")
        #expect(await blocking { RedisControl.call(port: server.port, ["PING"]) } == .simple("PONG"))
    }

    @Test("with client certificates required, the TLS server refuses a client without one and answers one with it")
    func tlsClientCertificate() async throws {
        let tls = try await RedisTLSMaterial.shared()
        let server = try await RedisServer.start(tls: tls, requireClientCertificate: true, password: "fixture-secret")
        let port = String(try #require(server.tlsPort))
        let common = ["--tls", "--cacert", tls.caCertificate, "-p", port, "-a", "fixture-secret", "--no-auth-warning"]
        let without = await redisCLI(common + ["PING"])
        #expect(!without.output.contains("PONG"), "\(without)")
        let with = await redisCLI(common + ["--cert", tls.clientCertificate, "--key", tls.clientKey, "PING"])
        #expect(with.output.contains("PONG"), "\(with)")
    }

    @Test("the TLS material verifies: server for localhost, 127.0.0.1 and ::1, client for client auth, neither under the other CA")
    func tlsMaterial() async throws {
        let tls = try await RedisTLSMaterial.shared()
        #expect(try await RedisTLSMaterial.shared().directory == tls.directory)
        for check in [["-verify_hostname", "localhost"], ["-verify_ip", "127.0.0.1"], ["-verify_ip", "::1"]] {
            let verified = await openssl(["verify", "-CAfile", tls.caCertificate, "-purpose", "sslserver"] + check + [tls.serverCertificate])
            #expect(verified.status == 0, "\(check): \(verified)")
        }
        let client = await openssl(["verify", "-CAfile", tls.caCertificate, "-purpose", "sslclient", tls.clientCertificate])
        #expect(client.status == 0, "\(client)")
        let wrongHost = await openssl(["verify", "-CAfile", tls.caCertificate, "-verify_hostname", "example.com", tls.serverCertificate])
        #expect(wrongHost.status != 0, "\(wrongHost)")
        for certificate in [tls.serverCertificate, tls.clientCertificate] {
            let other = await openssl(["verify", "-CAfile", tls.otherCACertificate, certificate])
            #expect(other.status != 0, "\(other)")
        }
    }

    @Test("a sentinel group without a password and with two replicas: every sentinel reports the master and both replicas")
    func sentinelGroupShape() async throws {
        let group = try await RedisSentinelGroup.start(masterName: "shape", replicas: 2)
        #expect(group.sentinelPorts.count == 3 && group.serverPorts.count == 3)
        #expect(await group.masterPort == group.serverPorts[0])
        for port in group.sentinelPorts {
            let replicas = await blocking { RedisControl.call(port: port, ["SENTINEL", "replicas", "shape"]) }
            #expect(replicas?.elements?.count == 2)
        }
        let role = await blocking { RedisControl.call(port: group.serverPorts[2], ["ROLE"]) }
        #expect(role?.elements?.first?.string == "slave")
        await group.stop()
    }

    @Test("the sentinel group fails over after its master is killed, and the new master accepts a write")
    func sentinelFailover() async throws {
        let clock = ContinuousClock()
        var started = clock.now
        let group = try await RedisSentinelGroup.start(password: "fixture-secret")
        print("fixture timing: sentinel group ready in \(clock.now - started)")
        let first = await group.masterPort
        #expect(first == group.serverPorts[0])
        started = clock.now
        let killed = await group.killMaster()
        #expect(killed == first)
        let next = await group.waitForFailover(from: killed, timeout: 20)
        print("fixture timing: failover in \(clock.now - started)")
        let port = try #require(next)
        #expect(port == group.serverPorts[1])
        #expect(clock.now - started < .seconds(15))
        let write = await redisCLI(["-p", String(port), "-a", "fixture-secret", "--no-auth-warning", "SET", "after", "failover"])
        #expect(write.output.trimmingCharacters(in: .whitespacesAndNewlines) == "OK", "\(write)")
        #expect(await group.masterPort == port)
        await group.stop()
    }

    @Test("the cluster has three masters, serves a key through redirects, and the replica of the key's master takes over with the key when that master is killed")
    func cluster() async throws {
        let clock = ContinuousClock()
        var started = clock.now
        let group = try await RedisClusterGroup.start()
        print("fixture timing: cluster ready in \(clock.now - started)")
        let masters = await group.masters()
        #expect(masters.count == 3)
        let ports = group.nodePorts.map(String.init)
        let write = await redisCLI(["-c", "-p", ports[0], "SET", "fixture-key", "cluster-value"])
        #expect(write.output.contains("OK"), "\(write)")
        for port in ports {
            let read = await redisCLI(["-c", "-p", port, "GET", "fixture-key"])
            #expect(read.output.trimmingCharacters(in: .whitespacesAndNewlines) == "cluster-value", "\(read)")
        }
        // The master that answers without a redirect owns the key; the
        // replica must have it before that master dies.
        var owner: UInt16?
        for port in masters {
            let direct = await redisCLI(["-p", String(port), "GET", "fixture-key"])
            if direct.output.trimmingCharacters(in: .whitespacesAndNewlines) == "cluster-value" { owner = port }
        }
        let killed = try #require(owner, "no master answered for the key without a redirect")
        let acknowledged = await redisCLI(["-p", String(killed), "WAIT", "1", "2000"])
        #expect(acknowledged.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(acknowledged)")
        started = clock.now
        await group.killNode(port: killed)
        var after: [UInt16] = []
        while clock.now - started < .seconds(15) {
            after = await group.masters()
            if after.count == 3 && !after.contains(killed) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        print("fixture timing: cluster failover in \(clock.now - started)")
        #expect(after.count == 3 && !after.contains(killed), "masters after the kill: \(after)")
        let survivor = try #require(after.first.map(String.init))
        let read = await redisCLI(["-c", "-p", survivor, "GET", "fixture-key"])
        #expect(read.output.trimmingCharacters(in: .whitespacesAndNewlines) == "cluster-value", "\(read)")
        await group.stop()
    }
}

/// Runs `openssl` with `arguments`; its exit status and output.
private func openssl(_ arguments: [String]) async -> (status: Int32, output: String) {
    await run(["/usr/bin/openssl"] + arguments)
}

/// Runs `redis-cli` with `arguments` against 127.0.0.1 and returns its exit
/// status and output (standard output and error).
func redisCLI(_ arguments: [String]) async -> (status: Int32, output: String) {
    await run(["/usr/bin/redis-cli", "-h", "127.0.0.1"] + arguments)
}

/// Runs `argv` to its end; its exit status and output (standard output and error).
private func run(_ argv: [String]) async -> (status: Int32, output: String) {
    await blocking {
        let output = NSTemporaryDirectory() + "modgud-fixture-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard let pid = try? ChildProcess.spawn(argv, output: output) else { return (-1, "\(argv[0]) did not start") }
        let status = ChildProcess.waitForExit(pid)
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }
}
