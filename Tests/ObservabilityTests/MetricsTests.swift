import Testing
@testable import Observability

@Suite("Metrics")
struct MetricsTests {
    @Test("renders the exact Prometheus text for a small registry")
    func exactRendering() {
        let registry = MetricsRegistry()
        let requests = registry.counter("http_requests_total", help: "Requests answered.", labels: ["route", "status"])
        let inFlight = registry.gauge("http_requests_in_flight", help: "Requests being answered.")
        let duration = registry.histogram("http_request_duration_seconds", help: "Time to answer.",
                                          labels: ["route"], buckets: [1, 0.1, 0.5, .infinity, 0.1])
        requests.increment(["/api/", "200"])
        requests.increment(["/api/", "200"], by: 2)
        requests.increment(["/bff/user", "401"])
        requests.increment(["/api/", "500"])
        inFlight.increment()
        inFlight.increment(by: 2)
        inFlight.decrement()
        duration.observe(["/api/"], 0.05)
        duration.observe(["/api/"], 0.1)
        duration.observe(["/api/"], 0.7)
        duration.observe(["/api/"], 3)
        let expected = """
        # HELP http_request_duration_seconds Time to answer.
        # TYPE http_request_duration_seconds histogram
        http_request_duration_seconds_bucket{route="/api/",le="0.1"} 2
        http_request_duration_seconds_bucket{route="/api/",le="0.5"} 2
        http_request_duration_seconds_bucket{route="/api/",le="1"} 3
        http_request_duration_seconds_bucket{route="/api/",le="+Inf"} 4
        http_request_duration_seconds_sum{route="/api/"} 3.85
        http_request_duration_seconds_count{route="/api/"} 4
        # HELP http_requests_in_flight Requests being answered.
        # TYPE http_requests_in_flight gauge
        http_requests_in_flight 2
        # HELP http_requests_total Requests answered.
        # TYPE http_requests_total counter
        http_requests_total{route="/api/",status="200"} 3
        http_requests_total{route="/api/",status="500"} 1
        http_requests_total{route="/bff/user",status="401"} 1

        """
        #expect(registry.render() == expected)
    }

    @Test("escapes label values and help text")
    func escaping() {
        let registry = MetricsRegistry()
        let counter = registry.counter("odd_total", help: "Back\\slash and\nnewline \"quoted\".", labels: ["v"])
        counter.increment(["a\\b\"c\nd"])
        #expect(registry.render() == """
        # HELP odd_total Back\\\\slash and\\nnewline "quoted".
        # TYPE odd_total counter
        odd_total{v="a\\\\b\\"c\\nd"} 1

        """)
    }

    @Test("unlabelled families start at zero; labelled ones start empty")
    func initialState() {
        let registry = MetricsRegistry()
        _ = registry.counter("a_total", help: "A.")
        _ = registry.histogram("b_seconds", help: "B.", buckets: [1])
        _ = registry.gauge("c", help: "C.", labels: ["x"])
        #expect(registry.render() == """
        # HELP a_total A.
        # TYPE a_total counter
        a_total 0
        # HELP b_seconds B.
        # TYPE b_seconds histogram
        b_seconds_bucket{le="1"} 0
        b_seconds_bucket{le="+Inf"} 0
        b_seconds_sum 0
        b_seconds_count 0
        # HELP c C.
        # TYPE c gauge

        """)
    }

    @Test("sample values", arguments: [
        (0.0, "0"), (3.0, "3"), (-2.0, "-2"), (0.25, "0.25"), (1e-05, "1e-05"), (1e20, "1e+20"),
        (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (Double.nan, "NaN"),
    ])
    func valueFormat(value: Double, text: String) {
        #expect(PrometheusText.format(value) == text)
    }

    @Test("asking for a name again returns the same family")
    func sameFamily() {
        let registry = MetricsRegistry()
        let first = registry.counter("x_total", help: "X.", labels: ["a"])
        let second = registry.counter("x_total", help: "X.", labels: ["a"])
        #expect(first === second)
        let h1 = registry.histogram("h", help: "H.", buckets: [2, 1])
        let h2 = registry.histogram("h", help: "H.", buckets: [1, 2, .infinity])
        #expect(h1 === h2)
        #expect(h1.buckets == [1, 2])
    }

    @Test("gauges set, go up and down")
    func gauge() {
        let gauge = MetricsRegistry().gauge("g", help: "G.", labels: ["k"])
        gauge.set(["a"], to: 5)
        gauge.decrement(["a"], by: 7)
        gauge.increment(["b"])
        #expect(gauge.value(["a"]) == -2)
        #expect(gauge.value(["b"]) == 1)
        #expect(gauge.value(["c"]) == 0)
        let unlabelled = MetricsRegistry().gauge("u", help: "U.")
        #expect(unlabelled.value() == 0)
        unlabelled.set(to: 2.5)
        unlabelled.increment()
        unlabelled.decrement(by: 4)
        #expect(unlabelled.value() == -0.5)
        #expect(MetricsRegistryRenderProbe.lines(unlabelled).contains("u -0.5"))
    }

    @Test("histogram bounds are inclusive; NaN is ignored")
    func histogramBounds() {
        let histogram = MetricsRegistry().histogram("h", help: "H.", buckets: [1, 2])
        histogram.observe(1)
        histogram.observe(2)
        histogram.observe(2.0000001)
        histogram.observe(.nan)
        #expect(histogram.count() == 3)
        #expect(MetricsRegistryRenderProbe.lines(histogram).contains("h_bucket{le=\"1\"} 1"))
        #expect(MetricsRegistryRenderProbe.lines(histogram).contains("h_bucket{le=\"2\"} 2"))
        #expect(MetricsRegistryRenderProbe.lines(histogram).contains("h_bucket{le=\"+Inf\"} 3"))
    }

    @Test("concurrent updates lose nothing")
    func concurrency() async {
        let registry = MetricsRegistry()
        let counter = registry.counter("hits_total", help: "Hits.", labels: ["worker"])
        let gauge = registry.gauge("open", help: "Open.")
        let climbing = registry.gauge("climbing", help: "Climbing.")
        let histogram = registry.histogram("lat", help: "Latency.", labels: ["worker"], buckets: [0.5])
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let label = [String(worker % 2)]
                    for index in 0..<10_000 {
                        counter.increment(label)
                        gauge.increment()
                        climbing.increment()
                        histogram.observe(label, Double(index % 2))
                        gauge.decrement()
                        if index % 1000 == 0 { _ = registry.render() }
                    }
                }
            }
        }
        #expect(counter.value(["0"]) + counter.value(["1"]) == 80_000)
        #expect(gauge.value() == 0)
        #expect(climbing.value() == 80_000)
        #expect(histogram.count(["0"]) + histogram.count(["1"]) == 80_000)
    }
}

/// Renders a single family, for assertions on individual lines.
enum MetricsRegistryRenderProbe {
    static func lines(_ family: some MetricFamily) -> [Substring] {
        var output = ""
        family.render(into: &output)
        return output.split(separator: "\n")
    }
}
