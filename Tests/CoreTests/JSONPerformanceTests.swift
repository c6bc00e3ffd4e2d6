import Core
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Speed of the request path, on demand only (timings in a shared CI run
/// are noise): `JSON_BENCH=1 swift test -c release --filter JSONPerformance`.
@Suite("JSON performance", .enabled(if: getenv("JSON_BENCH") != nil))
struct JSONPerformanceTests {
    /// About 1 KB: a token answer with user claims, PascalCase as Modgud may
    /// write it, with escapes, non-ASCII text, numbers and nesting.
    static let document = #"""
    {"AccessToken":"eyJhbGciOiJFUzI1NiIsImtpZCI6IjIwMjQtMDEifQ.eyJzdWIiOiI0MiIsImF1ZCI6ImJmZiJ9.c2lnbmF0dXJl",
     "TokenType":"Bearer","ExpiresIn":3600,"RefreshToken":"r-8f14e45fceea167a5a36dedd4bea2543",
     "Scope":"openid profile email offline_access api.read api.write",
     "IdToken":"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiI0MiIsIm5vbmNlIjoibi0wUzZfV3pBMk1qIn0.c2ln",
     "User":{"Id":42,"UserName":"ada.lovelace","DisplayName":"Ada Lovelace \u2014 Analyst",
       "Email":"ada@example.com","EmailVerified":true,"Locale":"en-GB","ZoneInfo":"Europe/London",
       "Roles":["admin","billing","support"],"Groups":[{"Id":7,"Name":"Engineering"},{"Id":9,"Name":"Ops"}],
       "Address":{"Street":"12 St James\u2019s Square","City":"London","PostalCode":"SW1Y 4JH","Country":"GB"},
       "Mfa":{"Enabled":true,"Methods":["totp","webauthn"],"LastUsed":1717171717},
       "Quota":{"Used":1234.5,"Limit":10000,"Ratio":0.12345},"Note":"line one\nline two\t\"quoted\"",
       "Avatar":null,"CreatedAt":"2021-03-04T05:06:07Z","UpdatedAt":"2024-05-06T07:08:09Z"},
     "Session":{"Id":"s-0c9a7b3e","Ip":"192.0.2.44","Agent":"Mozilla/5.0 (X11; Linux x86_64)","Remember":false}}
    """#

    @Test("parse a ~1 KB object well under 20 µs")
    func parseSpeed() throws {
        let bytes = Array(Self.document.utf8)
        let iterations = 50_000
        for _ in 0..<2_000 { _ = try JSON.parse(bytes) }
        var checksum = 0
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for _ in 0..<iterations { checksum &+= try JSON.parse(bytes).objectValue?.count ?? 0 }
        }
        let perParse = elapsed / iterations
        let microseconds = Double(perParse.components.attoseconds) / 1e12
        let megabytesPerSecond = Double(bytes.count) / microseconds
        print("JSON.parse: \(bytes.count) bytes in \(microseconds) µs (\(Int(megabytesPerSecond)) MB/s), checksum \(checksum)")
        #expect(perParse < .microseconds(20))
    }

    @Test("serialize the same object")
    func serializeSpeed() throws {
        let value = try JSON.parse(Self.document)
        let iterations = 50_000
        var total = 0
        let elapsed = ContinuousClock().measure {
            for _ in 0..<iterations { total &+= value.serialized.count }
        }
        let microseconds = Double((elapsed / iterations).components.attoseconds) / 1e12
        print("JSON.serialized: \(total / iterations) bytes in \(microseconds) µs")
        #expect(elapsed / iterations < .microseconds(20))
    }
}
