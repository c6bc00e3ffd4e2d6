import Core
import Foundation
@testable import ModgudSimulator
import OIDC
import Testing

/// One id_token verification (compact JWS parsing, RS256 over a 2048-bit
/// key through OpenSSL, the claim checks) timed alone, per call. Only with
/// BENCH=1; Tests/Benchmarks/callback.sh runs it in release mode.
@Suite("id_token verification benchmark", .enabled(if: ProcessInfo.processInfo.environment["BENCH"] == "1"))
struct IDTokenBenchmark {
    @Test func rs256VerificationAlone() throws {
        let count = Int(ProcessInfo.processInfo.environment["BENCH_N"] ?? "") ?? 5_000
        let keys = Fixtures.jwks(Fixtures.primary, Fixtures.rotated)
        let verifier = IDTokenVerifier(issuer: Fixtures.issuer, clientID: Fixtures.clientID)
        let token = Fixtures.primary.sign(Fixtures.idClaims())
        for _ in 0..<200 { _ = try verifier.verify(token, keys: keys, now: Fixtures.now, nonce: Fixtures.nonce) }
        var nanoseconds: [Int64] = []
        nanoseconds.reserveCapacity(count)
        let clock = ContinuousClock()
        for _ in 0..<count {
            let start = clock.now
            let claims = try verifier.verify(token, keys: keys, now: Fixtures.now, nonce: Fixtures.nonce)
            let elapsed = clock.now - start
            #expect(claims.sessionID == "sid-1")
            nanoseconds.append(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
        nanoseconds.sort()
        func ms(_ fraction: Double) -> String {
            String(format: "%.3f", Double(nanoseconds[min(count - 1, Int(fraction * Double(count)))]) / 1_000_000)
        }
        print("BENCH id_token RS256 verification alone: \(count) calls, p50 \(ms(0.5)) ms, p90 \(ms(0.9)) ms, p99 \(ms(0.99)) ms")
    }
}
