import Synchronization

/// Requests counted by route, method and status, and timed by route: the
/// two families a server updates on every request, stored together per
/// route. Recording one request is one lookup of its route under one lock;
/// a ``Counter`` and a ``Histogram`` beside each other would cost two label
/// arrays, two lookups by them and two locks.
///
/// Made by ``MetricsRegistry/requestObservations(count:countHelp:duration:durationHelp:buckets:)``,
/// which registers the two families (`count` with the labels `route`,
/// `method`, `status`; `duration` with `route`), rendered as a ``Counter``
/// and a ``Histogram`` with those labels would be.
public final class RequestObservations: Sendable {
    /// The method label values, by ``record(route:method:status:seconds:)``'s
    /// `method` index: anything else is recorded as `other`, so a client
    /// cannot grow the label set.
    public static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]

    let buckets: [Double]
    private let routes = Mutex<[String: Route]>([:])

    struct Route {
        var counts: [Key: UInt64] = [:]
        var durations: Histogram.Series
    }

    struct Key: Hashable {
        let status: Int
        let method: Int
    }

    init(buckets: [Double]) {
        self.buckets = buckets
    }

    /// Counts one request answered with `status` and records how long it
    /// took. `method` indexes ``methods``; out of range counts as `other`.
    public func record(route: String, method: Int, status: Int, seconds: Double) {
        let key = Key(status: status, method: Self.slot(method))
        let slot = seconds.isNaN ? nil : Histogram.bucketIndex(for: seconds, in: buckets)
        let bucketCount = buckets.count
        routes.withLock { routes in
            routes[route, default: Route(durations: Histogram.Series(bucketCount: bucketCount))].record(key, slot, seconds)
        }
    }

    /// How many requests one route, method and status has seen.
    public func count(route: String, method: Int, status: Int) -> UInt64 {
        routes.withLock { $0[route]?.counts[Key(status: status, method: Self.slot(method))] ?? 0 }
    }

    /// `method` when it indexes `methods`, else the index of `other`.
    private static func slot(_ method: Int) -> Int {
        methods.indices.contains(method) ? method : methods.count - 1
    }

    /// The request counts as a counter's series: label values (route,
    /// method, status) and value, sorted.
    func countSamples() -> [(labelValues: [String], value: Double)] {
        let all = routes.withLock { $0 }
        var samples: [(labelValues: [String], value: Double)] = []
        for (route, entry) in all {
            for (key, count) in entry.counts {
                samples.append(([route, Self.methods[key.method], String(key.status)], Double(count)))
            }
        }
        return samples.sorted { $0.labelValues.lexicographicallyPrecedes($1.labelValues) }
    }

    /// The durations as a histogram's series by route, sorted.
    func durationSeries() -> [(labelValues: [String], value: Histogram.Series)] {
        routes.withLock { $0 }.filter { $0.value.durations.count > 0 }
            .map { ([$0.key], $0.value.durations) }
            .sorted { $0.labelValues.lexicographicallyPrecedes($1.labelValues) }
    }
}

extension RequestObservations.Route {
    mutating func record(_ key: RequestObservations.Key, _ slot: Int?, _ seconds: Double) {
        counts[key, default: 0] += 1
        if let slot { durations.record(slot: slot, value: seconds) }
    }
}

/// One of the two families a ``RequestObservations`` renders: `Kind` says
/// which.
final class RequestFamily<Kind: RequestFamilyKind>: MetricFamily {
    let name: String
    let help: String
    var labelNames: [String] { Kind.labelNames }
    static var typeName: String { Kind.typeName }
    let store: RequestObservations

    init(name: String, help: String, store: RequestObservations) {
        self.name = name
        self.help = help
        self.store = store
    }

    func renderSamples(into output: inout String) {
        Kind.renderSamples(of: store, name: name, into: &output)
    }
}

protocol RequestFamilyKind: Sendable {
    static var typeName: String { get }
    static var labelNames: [String] { get }
    static func renderSamples(of store: RequestObservations, name: String, into output: inout String)
}

/// Requests by route, method and status, as a counter.
enum RequestCount: RequestFamilyKind {
    static var typeName: String { "counter" }
    static var labelNames: [String] { ["route", "method", "status"] }

    static func renderSamples(of store: RequestObservations, name: String, into output: inout String) {
        for (labelValues, value) in store.countSamples() {
            PrometheusText.appendSample(name, labelNames: labelNames, labelValues: labelValues, value: value, to: &output)
        }
    }
}

/// Time to answer by route, as a histogram.
enum RequestDuration: RequestFamilyKind {
    static var typeName: String { "histogram" }
    static var labelNames: [String] { ["route"] }

    static func renderSamples(of store: RequestObservations, name: String, into output: inout String) {
        Histogram.renderSeries(store.durationSeries(), name: name, labelNames: labelNames, buckets: store.buckets,
                               into: &output)
    }
}
