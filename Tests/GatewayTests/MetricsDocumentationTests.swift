import Configuration
import Core
import Foundation
import Modgud
import Testing
import TestSupport
@testable import Gateway

/// Docs/operations.md's metrics table is the list of what the gateway
/// exposes: a gateway with every optional part on (trusted proxies and the
/// per-address cap, an app hand-off, the session cache, the API proxy), after
/// a sign-in, a proxied request with a refresh and a scrape, exposes
/// exactly the documented metrics with the documented types.
@Suite("Metrics documentation", .serialized)
struct MetricsDocumentationTests {
    static let operations = NginxFront.repositoryRoot.appendingPathComponent("Docs/operations.md").path

    /// `name → type` of every table row starting with a backquoted `bff_` name.
    static func documented() throws -> [String: String] {
        var table: [String: String] = [:]
        for line in try String(contentsOfFile: operations, encoding: .utf8).split(separator: "\n") where line.hasPrefix("| `bff_") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            #expect(table[name] == nil, "\(name) is listed twice")
            #expect(cells.count == 7 && !cells[3].isEmpty && !cells[5].isEmpty, "\(name): a meaning and an alert (or information)")
            table[name] = cells[2]
        }
        return table
    }

    /// `name → type` of every `# TYPE` line.
    static func exposed(_ text: String) -> [String: String] {
        var families: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let words = line.split(separator: " ")
            families[String(words[2])] = String(words[3])
        }
        return families
    }

    @Test("every metric a fully configured gateway exposes is documented once, with its type, and nothing else is")
    func tableMatchesTheGateway() async throws {
        let fixture = try await RefreshFixture.start(gateway: { config in
            config.trustedProxies = [CIDR("192.0.2.0/24")!]
            AppLoginSupport.configure(&config)
        })
        #expect(try await fixture.get().status == 200)
        let text = try await LoopbackCall.send(port: fixture.harness.adminPort, "GET", "/metrics").bodyText
        let exposed = Self.exposed(text)
        let documented = try Self.documented()
        #expect(exposed.count >= 30, "\(exposed.keys.sorted())")
        #expect(Set(exposed.keys).subtracting(documented.keys).sorted() == [], "exposed but not in Docs/operations.md")
        #expect(Set(documented.keys).subtracting(exposed.keys).sorted() == [], "documented but not exposed")
        for (name, type) in exposed where documented[name] != nil {
            #expect(documented[name] == type, "\(name) is a \(type)")
        }
        await fixture.stop()
    }

    @Test("the documented endpoint and outcome labels of bff_modgud_calls_total are the client's fixed sets")
    func callLabelsMatch() throws {
        let row = try #require(try String(contentsOfFile: Self.operations, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("| `bff_modgud_calls_total`") })
        for name in ModgudCall.allCases.map(\.rawValue) + ModgudCallOutcome.allCases.map(\.rawValue) {
            #expect(row.contains("`\(name)`"), "\(name) is not documented")
        }
    }
}
