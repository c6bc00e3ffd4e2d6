import Testing
@testable import Observability

@Suite("Request observations")
struct RequestObservationsTests {
    typealias Request = (route: String, method: Int, status: Int, seconds: Double)

    /// A registry with the store under the names the tests use.
    static func make() -> (MetricsRegistry, RequestObservations) {
        let registry = MetricsRegistry()
        return (registry, registry.requestObservations(count: "requests_total", countHelp: "Requests.",
                                                       duration: "request_seconds", durationHelp: "Time."))
    }

    static let requests: [Request] = [
        ("/api/*", 0, 200, 0.004), ("/api/*", 0, 200, 0.2), ("/api/*", 2, 201, 0.03), ("/api/*", 0, 502, 12),
        ("/healthz", 0, 200, 0.001), ("/healthz", 1, 200, 0.001), ("unmatched", 5, 404, 0.0001),
        ("/bff/user", 7, 405, 0.01), ("/bff/user", 0, 401, 0.02), ("/api/*", 0, 200, 0.2),
    ]

    /// What a counter and a histogram beside each other print for the same
    /// requests: the combined store must print exactly that.
    @Test("renders exactly what a Counter and a Histogram with the same labels render")
    func sameTextAsCounterAndHistogram() {
        let separate = MetricsRegistry()
        let counter = separate.counter("requests_total", help: "Requests.", labels: ["route", "method", "status"])
        let histogram = separate.histogram("request_seconds", help: "Time.", labels: ["route"])
        let (combined, observations) = Self.make()
        for request in Self.requests {
            counter.increment([request.route, RequestObservations.methods[request.method], String(request.status)])
            histogram.observe([request.route], request.seconds)
            observations.record(route: request.route, method: request.method, status: request.status, seconds: request.seconds)
        }
        #expect(combined.render() == separate.render())
        #expect(combined.render().contains(#"requests_total{route="/api/*",method="GET",status="200"} 3"#))
        #expect(observations.count(route: "/api/*", method: 0, status: 200) == 3)
    }

    @Test("a method index out of range counts as other; a NaN duration is counted but not timed; any status renders")
    func outOfRangeAndNaN() {
        let (registry, observations) = Self.make()
        observations.record(route: "/x", method: 99, status: 200, seconds: .nan)
        observations.record(route: "/x", method: -1, status: 200, seconds: 0.5)
        observations.record(route: "/x", method: 3, status: -1, seconds: 0.5) // a handler's odd status
        let text = registry.render()
        #expect(text.contains(#"requests_total{route="/x",method="other",status="200"} 2"#))
        #expect(text.contains(#"requests_total{route="/x",method="PUT",status="-1"} 1"#))
        #expect(text.contains(#"request_seconds_count{route="/x"} 2"#))
        #expect(observations.count(route: "/x", method: 8, status: 200) == 2, "out of range reads other")
        #expect(observations.count(route: "/x", method: 0, status: 201) == 0)
    }

    @Test("asking twice returns the same store")
    func registeredOnce() {
        let (registry, first) = Self.make()
        let second = registry.requestObservations(count: "requests_total", countHelp: "Other help.",
                                                  duration: "request_seconds", durationHelp: "Other help.")
        #expect(first === second)
        first.record(route: "/x", method: 0, status: 200, seconds: 0.1)
        #expect(second.count(route: "/x", method: 0, status: 200) == 1)
    }

    @Test("a route label keeps one number, and a request recorded by number counts under its label")
    func routeLabelsAreNumberedOnce() {
        let (first, second) = (RouteLabel("/numbered/one/*"), RouteLabel("/numbered/two/*"))
        #expect(first != second)
        #expect(RouteLabel("/numbered/one/*") == first)
        #expect(second.text == "/numbered/two/*")
        let (registry, observations) = Self.make()
        observations.record(route: first, method: 0, status: 200, seconds: 0.1)
        observations.record(route: "/numbered/one/*", method: 0, status: 200, seconds: 0.1)
        observations.record(route: second, method: 2, status: 201, seconds: 0.1)
        #expect(observations.count(route: "/numbered/one/*", method: 0, status: 200) == 2)
        #expect(observations.count(route: "/numbered/two/*", method: 2, status: 201) == 1)
        let text = registry.render()
        #expect(text.contains(#"requests_total{route="/numbered/one/*",method="GET",status="200"} 2"#))
        #expect(text.contains(#"request_seconds_count{route="/numbered/two/*"} 1"#))
    }
}
