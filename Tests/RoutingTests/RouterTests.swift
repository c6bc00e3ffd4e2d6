import Testing
import HTTP
@testable import Routing

@Suite("Router")
struct RouterTests {
    static func builder() -> RouterBuilder {
        var router = RouterBuilder()
        let ok: RouteHandler = { _, _ in HTTPResponse(status: .ok) }
        router.add(.get, "/bff/user", ok)
        router.add(.post, "/bff/logout", ok)
        router.add(.get, "/bff/passkeys", ok)
        router.add(.delete, "/bff/passkeys/{id}", ok)
        router.add(.get, "/api/*", ok)
        router.add(.get, "/api/orders/*", ok)
        return router
    }

    static func router() -> Router { builder().build() }

    static func pattern(_ match: Router.Match) -> String? {
        if case .found(let route, _) = match { return route.pattern }
        return nil
    }

    @Test(arguments: [
        ("GET", "/bff/user", "/bff/user"),
        ("HEAD", "/bff/user", "/bff/user"),
        ("DELETE", "/bff/passkeys/abc", "/bff/passkeys/{id}"),
        ("GET", "/api/x/y", "/api/*"),
        ("GET", "/api/orders/7", "/api/orders/*"),
        ("GET", "/api/orders", "/api/orders/*"),
    ])
    func findsTheMostSpecificRoute(method: String, path: String, expected: String) {
        #expect(Self.pattern(Self.router().match(HTTPMethod(method), path: path[...])) == expected)
    }

    /// A built router is frozen: routes added to its builder afterwards,
    /// or to a copy of the builder, reach only the routers built from them.
    @Test func aBuiltRouterKeepsItsRoutes() {
        var builder = Self.builder()
        let original = builder.build()
        var copy = builder
        let ok: RouteHandler = { _, _ in HTTPResponse(status: .ok) }
        copy.add(.get, "/extra", ok)
        copy.add(.get, "/api/extra/*", ok)
        copy.addImmediate(.get, "/now") { _, _ in HTTPResponse(status: .ok) }
        builder.add(.get, "/later", ok)
        let extended = copy.build()
        #expect(Self.pattern(extended.match(.get, path: "/extra")) == "/extra")
        #expect(Self.pattern(extended.match(.get, path: "/api/extra/1")) == "/api/extra/*")
        #expect(extended.hasFastPaths && extended.registered.count == original.registered.count + 3)
        #expect(Self.pattern(extended.match(.get, path: "/later")) == nil)
        #expect(Self.pattern(original.match(.get, path: "/extra")) == nil)
        #expect(Self.pattern(original.match(.get, path: "/later")) == nil)
        #expect(Self.pattern(original.match(.get, path: "/api/extra/1")) == "/api/*")
        #expect(!original.hasFastPaths && original.registered.count == 6)
        #expect(Self.pattern(builder.build().match(.get, path: "/later")) == "/later")
    }

    /// Which routes offer a fast path: an immediate handler does, a
    /// handler in a task does not, and a responder says for itself.
    @Test func aRouterKnowsWhetherAnyRouteHasAFastPath() {
        var builder = RouterBuilder()
        builder.add(.get, "/later") { _, _ in HTTPResponse(status: .ok) }
        #expect(!builder.build().hasFastPaths)
        builder.addImmediate(.get, "/now") { _, _ in HTTPResponse(status: .ok) }
        #expect(builder.build().hasFastPaths)
        #expect(RouterBuilder().build().registered.isEmpty && !Router().hasFastPaths)
        guard case .notFound = Router().match(.get, path: "/") else {
            Issue.record("an empty router finds nothing")
            return
        }
    }

    @Test func bindsPathParameters() {
        guard case .found(_, let parameters) = Self.router().match(.delete, path: "/bff/passkeys/k-1") else {
            Issue.record("no match")
            return
        }
        #expect(parameters == ["id": "k-1"])
    }

    @Test func reportsAllowedMethodsFor405() {
        guard case .methodNotAllowed(let allowed) = Self.router().match(.post, path: "/bff/user") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.get, .head], "HEAD is served wherever GET is")
    }

    @Test(arguments: ["/", "/bff", "/bff/user/extra", "/bff/passkeys/a/b", "/other"])
    func unknownPathsAreNotFound(path: String) {
        guard case .notFound = Self.router().match(.get, path: path[...]) else {
            Issue.record("expected 404 for \(path)")
            return
        }
    }

    /// Routes starting with a parameter or with no segment at all, beside
    /// literal ones: the router only looks at the routes that can match a
    /// path's first segment, and must still pick what walking every route
    /// in registration order would pick.
    static func mixedRouter() -> Router {
        var router = RouterBuilder()
        let ok: RouteHandler = { _, _ in HTTPResponse(status: .ok) }
        router.add(.get, "/{tenant}/y", ok)
        router.add(.get, "/x/{id}", ok)
        router.add(.get, "/x/z", ok)
        router.add(.get, "/*", ok)
        router.add(.get, "/api/*", ok)
        router.add(.get, "/{tenant}/items/{id}", ok)
        router.add(.get, "/api/{version}/items/{id}", ok)
        return router.build()
    }

    @Test(arguments: [
        ("/x/y", "/{tenant}/y"),
        ("/x/q", "/x/{id}"),
        ("/x/z", "/x/z"),
        ("/", "/*"),
        ("/other", "/*"),
        ("/api", "/api/*"),
        ("/api/v1", "/api/*"),
        ("/acme/items/7", "/{tenant}/items/{id}"),
        ("/api/items/7", "/{tenant}/items/{id}"),
        ("/api/v2/items/7", "/api/{version}/items/{id}"),
    ])
    func routesOpeningWithAParameterOrNothingStillCompete(path: String, expected: String) {
        #expect(Self.pattern(Self.mixedRouter().match(.get, path: path[...])) == expected)
    }

    /// One route for several methods (a proxy prefix): each of them and
    /// HEAD (with GET) match it, and any other method gets 405 listing them.
    /// The route a path fits best owns it: a method it refuses is 405, not
    /// served by a shorter prefix.
    @Test func oneRouteAnswersSeveralMethods() {
        var builder = RouterBuilder()
        builder.add([.get, .post, .delete], "/api/*") { _, _ in HTTPResponse(status: .ok) }
        builder.add(.put, "/api/special") { _, _ in HTTPResponse(status: .ok) }
        let router = builder.build()
        for method in [HTTPMethod.get, .head, .post, .delete] {
            #expect(Self.pattern(router.match(method, path: "/api/items")) == "/api/*", "\(method)")
        }
        #expect(Self.pattern(router.match(.put, path: "/api/special")) == "/api/special")
        guard case .methodNotAllowed(let special) = router.match(.post, path: "/api/special") else {
            Issue.record("expected 405: the exact route owns its path")
            return
        }
        #expect(special == [.put])
        guard case .methodNotAllowed(let allowed) = router.match(.patch, path: "/api/items") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.get, .head, .post, .delete])
        #expect(router.registered.map(\.method) == [.get, .post, .delete, .put])

        var nestedBuilder = RouterBuilder()
        nestedBuilder.add([.get, .post, .delete], "/api/*") { _, _ in HTTPResponse(status: .ok) }
        nestedBuilder.add([.get], "/api/admin/*") { _, _ in HTTPResponse(status: .ok) }
        let nested = nestedBuilder.build()
        #expect(Self.pattern(nested.match(.head, path: "/api/admin/users")) == "/api/admin/*")
        #expect(Self.pattern(nested.match(.post, path: "/api/other")) == "/api/*")
        for path in ["/api/admin", "/api/admin/users/7"] {
            guard case .methodNotAllowed(let owner) = nested.match(.post, path: path[...]) else {
                Issue.record("\(path): a method the longer prefix refuses must not reach the shorter one")
                return
            }
            #expect(owner == [.get, .head])
        }

        var empty = RouterBuilder()
        empty.add([], "/none") { _, _ in HTTPResponse(status: .ok) }
        #expect(empty.build().registered.isEmpty, "a route answering no method registers nothing")
    }
}
