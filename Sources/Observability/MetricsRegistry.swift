import Synchronization

/// The metrics of one process, rendered for `GET /metrics`.
///
/// There is no global registry: `main` creates one and hands it to whatever
/// records metrics. Families are created once, at start-up, and kept; the
/// hot path then only calls `increment`/`set`/`observe`, each one short
/// lock on that family.
///
/// **Registering a name twice** returns the family registered first when the
/// type, label names (and buckets, for a histogram) are the same, so two
/// components may ask for the same metric (the first help text stays). A
/// different type, label set or bucket list under one name is a programming
/// error and traps, as do invalid metric or label names (`[a-zA-Z_:][a-zA-Z0-9_:]*`,
/// `[a-zA-Z_][a-zA-Z0-9_]*` not starting with `__`, and `le` on a histogram).
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[String: any MetricFamily]>([:])

    /// An empty registry.
    public init() {}

    /// The counter `name`, created on first request.
    public func counter(_ name: String, help: String, labels: [String] = []) -> Counter {
        register(name, labels: labels, make: { Counter(name: name, help: help, labelNames: labels) },
                 matches: { $0.labelNames == labels })
    }

    /// The gauge `name`, created on first request.
    public func gauge(_ name: String, help: String, labels: [String] = []) -> Gauge {
        register(name, labels: labels, make: { Gauge(name: name, help: help, labelNames: labels) },
                 matches: { $0.labelNames == labels })
    }

    /// The histogram `name`, created on first request. `buckets` are upper
    /// bounds; they are sorted, de-duplicated, and `+Inf` (always present)
    /// is dropped from the list if given.
    public func histogram(_ name: String, help: String, labels: [String] = [],
                          buckets: [Double] = Histogram.defaultBuckets) -> Histogram {
        precondition(!labels.contains("le"), "histogram \(name): the label name le is reserved")
        precondition(!buckets.contains(where: \.isNaN), "histogram \(name): NaN bucket")
        let bounds = Array(Set(buckets.filter { $0 != .infinity })).sorted()
        return register(name, labels: labels,
                        make: { Histogram(name: name, help: help, labelNames: labels, buckets: bounds) },
                        matches: { $0.labelNames == labels && $0.buckets == bounds })
    }

    /// The request count (labels `route`, `method`, `status`) and duration
    /// (label `route`) families, stored together; created on first request.
    public func requestObservations(count: String, countHelp: String, duration: String, durationHelp: String,
                                    buckets: [Double] = Histogram.defaultBuckets) -> RequestObservations {
        precondition(!buckets.contains(where: \.isNaN), "request observations \(duration): NaN bucket")
        let bounds = Array(Set(buckets.filter { $0 != .infinity })).sorted()
        let countFamily = register(count, labels: RequestCount.labelNames,
                                   make: { RequestFamily<RequestCount>(name: count, help: countHelp,
                                                                       store: RequestObservations(buckets: bounds)) },
                                   matches: { $0.store.buckets == bounds })
        let durationFamily = register(duration, labels: RequestDuration.labelNames,
                                      make: { RequestFamily<RequestDuration>(name: duration, help: durationHelp,
                                                                             store: countFamily.store) },
                                      matches: { $0.store === countFamily.store })
        precondition(durationFamily.store === countFamily.store, "request observations \(count) and \(duration) registered apart")
        return countFamily.store
    }

    /// Every family in the Prometheus text format 0.0.4, sorted by name;
    /// series within a family are sorted by label values. Serve it with
    /// ``contentType``.
    public func render() -> String {
        let all = families.withLock { Array($0.values) }
        var output = ""
        for family in all.sorted(by: { $0.name < $1.name }) {
            family.render(into: &output)
        }
        return output
    }

    /// The `Content-Type` for ``render()``'s output.
    public static let contentType = PrometheusText.contentType

    private func register<Family: MetricFamily>(_ name: String, labels: [String], make: () -> Family,
                                                matches: (Family) -> Bool) -> Family {
        precondition(PrometheusText.isValidMetricName(name), "invalid metric name \(name)")
        precondition(labels.allSatisfy(PrometheusText.isValidLabelName), "invalid label name in \(labels)")
        precondition(Set(labels).count == labels.count, "metric \(name): repeated label name")
        return families.withLock { families in
            if let existing = families[name] {
                guard let same = existing as? Family, matches(same) else {
                    preconditionFailure("metric \(name) registered again with another type, labels or buckets")
                }
                return same
            }
            let family = make()
            families[name] = family
            return family
        }
    }
}
