import Foundation
import Testing
import Configuration
import Core
import System
@testable import Gateway

/// Docs/openapi.yaml documents exactly the `/bff/*` routes the gateway
/// registers, method for method.
@Suite("OpenAPI document in step with the routes")
struct OpenAPITests {
    static func documented() throws -> Set<String> {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/openapi.yaml")
        let text = try String(contentsOf: url, encoding: .utf8)
        var routes: Set<String> = []
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":") { path = String(line.dropFirst(2).dropLast()); continue }
            if !line.hasPrefix("  ") { path = nil }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let path, line.hasPrefix("    "), !line.hasPrefix("     "),
               let method = ["get:", "post:", "put:", "patch:", "delete:"].first(where: { trimmed == $0 }) {
                routes.insert("\(method.dropLast().uppercased()) \(path)")
            }
        }
        return routes
    }

    @Test func everyRouteIsDocumentedAndNothingElse() throws {
        var config = GatewayConfig.defaults
        config.listen = ListenAddress(host: .v4(0x7F00_0001), port: 0)
        config.adminListen = ListenAddress(host: .v4(0x7F00_0001), port: 0)
        config.modgudURL = HTTPURL("http://127.0.0.1:1")
        config.client = ClientCredentials(id: "bff", secret: Secret("s"))
        config.apps = [AppLoginApp(name: "App", callbackURI: "app://callback")]
        config.crossDevice = true
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let service = try GatewayService(config: config, group: group, logger: .init(sink: .discarding))
        let registered = Set(service.publicRoutes.filter { $0.pattern.hasPrefix("/bff/") }.map { "\($0.method.rawValue) \($0.pattern)" })
        let documented = try Self.documented()
        #expect(registered.count >= 11)
        #expect(registered.subtracting(documented).isEmpty, "undocumented: \(registered.subtracting(documented).sorted())")
        #expect(documented.subtracting(registered).isEmpty, "documented but missing: \(documented.subtracting(registered).sorted())")
    }
}
