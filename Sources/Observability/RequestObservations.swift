import Synchronization

/// Requests counted by route, method and status, and timed by route: the
/// two families a server updates on every request, stored together per
/// route. Recording one request is one array slot (by the route's
/// `RouteLabel`) under one lock;
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
    /// Indexed by `RouteLabel.number`.
    private let routes = Mutex<[Route?]>([])

    struct Route {
        /// Counts by status and method: a route sees a handful of pairs,
        /// found by a scan rather than a hash.
        var counts: [(key: Key, count: UInt64)] = []
        var durations: Histogram.Series
    }

    struct Key: Equatable {
        let status: Int
        let method: Int
    }

    init(buckets: [Double]) {
        self.buckets = buckets
    }

    /// Counts one request to `route` answered with `status` and records
    /// how long it took. `method` indexes ``methods``; out of range counts
    /// as `other`.
    public func record(route label: RouteLabel, method: Int, status: Int, seconds: Double) {
        let (route, key) = (label.number, Key(status: status, method: Self.slot(method)))
        let slot = seconds.isNaN ? nil : Histogram.bucketIndex(for: seconds, in: buckets)
        let bucketCount = buckets.count
        routes.withLock { routes in
            if route >= routes.count { routes += Array(repeating: nil, count: route + 1 - routes.count) }
            if routes[route] == nil { routes[route] = Route(durations: Histogram.Series(bucketCount: bucketCount)) }
            routes[route]!.record(key, slot, seconds)
        }
    }

    /// ``record(route:method:status:seconds:)`` by the label's text.
    public func record(route: String, method: Int, status: Int, seconds: Double) {
        record(route: RouteLabel(route), method: method, status: status, seconds: seconds)
    }

    /// How many requests one route, method and status has seen.
    public func count(route: String, method: Int, status: Int) -> UInt64 {
        let (number, key) = (RouteLabel(route).number, Key(status: status, method: Self.slot(method)))
        return routes.withLock { routes in
            guard number < routes.count, let entry = routes[number] else { return 0 }
            return entry.counts.first { $0.key == key }?.count ?? 0
        }
    }

    /// `method` when it indexes `methods`, else the index of `other`.
    private static func slot(_ method: Int) -> Int {
        methods.indices.contains(method) ? method : methods.count - 1
    }

    /// Every route seen, with its label.
    private func labelled() -> [(label: String, route: Route)] {
        let all = routes.withLock { $0 }
        return all.indices.compactMap { number in all[number].map { (RouteLabel(number: number).text, $0) } }
    }

    /// The request counts as a counter's series: label values (route,
    /// method, status) and value, sorted.
    func countSamples() -> [(labelValues: [String], value: Double)] {
        var samples: [(labelValues: [String], value: Double)] = []
        for (label, entry) in labelled() {
            for (key, count) in entry.counts {
                samples.append(([label, Self.methods[key.method], String(key.status)], Double(count)))
            }
        }
        return samples.sorted { $0.labelValues.lexicographicallyPrecedes($1.labelValues) }
    }

    /// The durations as a histogram's series by route, sorted.
    func durationSeries() -> [(labelValues: [String], value: Histogram.Series)] {
        labelled().filter { $0.route.durations.count > 0 }
            .map { ([$0.label], $0.route.durations) }
            .sorted { $0.labelValues.lexicographicallyPrecedes($1.labelValues) }
    }
}

extension RequestObservations.Route {
    mutating func record(_ key: RequestObservations.Key, _ slot: Int?, _ seconds: Double) {
        if let index = counts.firstIndex(where: { $0.key == key }) {
            counts[index].count += 1
        } else {
            counts.append((key, 1))
        }
        if let slot { durations.record(slot: slot, value: seconds) }
    }
}

/// A route's metric label, numbered process-wide: a route is given its
/// label once, when it is registered, and a request carries it to its
/// metrics, so recording one indexes an array by the number instead of
/// hashing the text. The same text always gets the same number, so two
/// routers' routes of one pattern count as one series.
public struct RouteLabel: Hashable, Sendable {
    private static let table = Mutex<(numbers: [String: Int], texts: [String])>(([:], []))

    /// Its place in the process-wide table.
    let number: Int

    fileprivate init(number: Int) { self.number = number }

    /// The label `text`, numbered now if it has no number yet.
    public init(_ text: String) {
        number = Self.table.withLock { table in
            if let number = table.numbers[text] { return number }
            table.texts.append(text)
            table.numbers[text] = table.texts.count - 1
            return table.texts.count - 1
        }
    }

    /// The label as written.
    public var text: String { Self.table.withLock { $0.texts[number] } }
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
