import HTTP
import TestSupport
import Testing
@testable import Routing

/// The router against a plain model of its rule, on random route tables
/// and paths. A route without parameters or `*` whose pattern is the path
/// itself, serving the method (HEAD where GET), wins first. Otherwise the
/// routes the path fits (their literal segments equal the path's non-empty
/// segments; a prefix route's, the first ones) are ranked, exact above
/// prefix and then by segment count; the first route of the best rank, in
/// registration order, serving the method wins. If none of the best rank
/// serves it, the methods of the best rank's routes.
@Suite struct RouterModelTests {
    struct ModelRoute {
        let methods: [HTTPMethod]
        let pattern: String
    }

    static func modelMatch(_ routes: [ModelRoute], _ method: HTTPMethod, _ path: String) -> String {
        let parts = path.split(separator: "/").map(String.init)
        func binds(_ route: ModelRoute) -> [String: String]? {
            let prefix = route.pattern.hasSuffix("/*")
            let segments = (prefix ? String(route.pattern.dropLast(2)) : route.pattern).split(separator: "/").map(String.init)
            guard prefix ? parts.count >= segments.count : parts.count == segments.count else { return nil }
            var parameters: [String: String] = [:]
            for (segment, part) in zip(segments, parts) {
                if segment.hasPrefix("{") { parameters[String(segment.dropFirst().dropLast())] = part }
                else if segment != part { return nil }
            }
            return parameters
        }
        func serves(_ route: ModelRoute, _ method: HTTPMethod) -> Bool { route.methods.contains(method) }
        for method in method == .head ? [HTTPMethod.head, .get] : [method] {
            if let exact = routes.first(where: { $0.pattern == path && !$0.pattern.contains("{") && !$0.pattern.hasSuffix("*") && serves($0, method) }) {
                return "found \(exact.pattern) []"
            }
        }
        func rank(_ route: ModelRoute) -> Int {
            route.pattern.hasSuffix("/*") ? String(route.pattern.dropLast(2)).split(separator: "/").count : .max
        }
        let fitting = routes.filter { binds($0) != nil }
        guard let top = fitting.map(rank).max() else { return "404" }
        let owners = fitting.filter { rank($0) == top }
        if let chosen = owners.first(where: { $0.methods.contains(method) || (method == .head && $0.methods.contains(.get)) }) {
            return "found \(chosen.pattern) \(binds(chosen)!.sorted { $0.key < $1.key })"
        }
        var allowed: [HTTPMethod] = []
        for route in owners {
            for method in route.methods {
                for each in method == .get ? [HTTPMethod.get, .head] : [method] where !allowed.contains(each) { allowed.append(each) }
            }
        }
        return allowed.isEmpty ? "404" : "405 \(allowed)"
    }

    static func describe(_ match: Router.Match) -> String {
        switch match {
        case .found(let route, let parameters): "found \(route.pattern) \(parameters.sorted { $0.key < $1.key })"
        case .methodNotAllowed(let allowed): "405 \(allowed)"
        case .notFound: "404"
        }
    }

    @Test func agreesWithTheModelOnRandomTables() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let words = ["api", "x", "bff", "items", "Api", "ä", "a-b"]
        let methods: [HTTPMethod] = [.get, .head, .post, .delete]
        for _ in 0..<2000 {
            var builder = RouterBuilder()
            var model: [ModelRoute] = []
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let segments = (0..<Int.random(in: 0...3, using: &random)).map { index in
                    Int.random(in: 0..<3, using: &random) == 0 ? "{p\(index)}" : words.randomElement(using: &random)!
                }
                let pattern = "/" + segments.joined(separator: "/") + (Bool.random(using: &random) ? (segments.isEmpty ? "*" : "/*") : "")
                let chosen = methods.filter { $0 != .head && Bool.random(using: &random) }
                guard !chosen.isEmpty, !model.contains(where: { $0.pattern == pattern }) else { continue }
                builder.add(chosen, pattern) { _, _ in HTTPResponse(status: .ok) }
                model.append(ModelRoute(methods: chosen, pattern: pattern))
            }
            let router = builder.build()
            for _ in 0..<20 {
                let path = "/" + (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    Int.random(in: 0..<8, using: &random) == 0 ? "" : words.randomElement(using: &random)!
                }.joined(separator: "/")
                let method = methods.randomElement(using: &random)!
                let expected = Self.modelMatch(model, method, path)
                #expect(Self.describe(router.match(method, path: path[...])) == expected, "\(method) \(path) in \(model.map(\.pattern)), seed \(seed)")
            }
        }
    }
}
