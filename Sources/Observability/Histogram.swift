import Synchronization

/// Counts observations into buckets: request durations, body sizes. Made by
/// ``MetricsRegistry/histogram(_:help:labels:buckets:)``; rendered as
/// cumulative `_bucket{le="…"}` lines ending with `le="+Inf"`, then `_sum`
/// and `_count`.
public final class Histogram: Sendable, MetricFamily {
    /// Prometheus' default buckets, in seconds: 5 ms to 10 s.
    public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public let name: String
    public let help: String
    public let labelNames: [String]
    /// The finite upper bounds, ascending; `+Inf` is implied.
    public let buckets: [Double]
    static var typeName: String { "histogram" }
    private let series: Mutex<SeriesTable<Series>>

    struct Series {
        /// Observations per bucket, not cumulative; the last slot is `+Inf`.
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0
        init(bucketCount: Int) { counts = Array(repeating: 0, count: bucketCount + 1) }
    }

    /// `buckets` must already be sorted, unique and finite.
    init(name: String, help: String, labelNames: [String], buckets: [Double]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.buckets = buckets
        self.series = Mutex(SeriesTable(unlabelled: labelNames.isEmpty ? Series(bucketCount: buckets.count) : nil))
    }

    /// Records `value` in the unlabelled histogram.
    public func observe(_ value: Double) {
        observe([], value)
    }

    /// Records `value` in the series named by `labelValues`. NaN is ignored.
    public func observe(_ labelValues: [String], _ value: Double) {
        checkArity(labelValues)
        guard !value.isNaN else { return }
        let slot = Self.bucketIndex(for: value, in: buckets)
        let bucketCount = buckets.count
        series.withLock { all in
            all.update(labelValues, default: Series(bucketCount: bucketCount)) { $0.record(slot: slot, value: value) }
        }
    }

    /// How many observations one series holds (for tests and readiness).
    public func count(_ labelValues: [String] = []) -> UInt64 {
        series.withLock { $0[labelValues]?.count ?? 0 }
    }

    /// The first bucket whose bound is at least `value` (binary search).
    static func bucketIndex(for value: Double, in buckets: [Double]) -> Int {
        var low = 0
        var high = buckets.count
        while low < high {
            let middle = (low + high) / 2
            if buckets[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func renderSamples(into output: inout String) {
        Self.renderSeries(series.withLock { $0.sorted() }, name: name, labelNames: labelNames, buckets: buckets,
                          into: &output)
    }

    /// Cumulative `_bucket` lines, then `_sum` and `_count`, per series.
    static func renderSeries(_ series: [(labelValues: [String], value: Series)], name: String, labelNames: [String],
                             buckets: [Double], into output: inout String) {
        for (labelValues, entry) in series {
            var cumulative: UInt64 = 0
            for (index, count) in entry.counts.enumerated() {
                cumulative += count
                let bound = index < buckets.count ? PrometheusText.format(buckets[index]) : "+Inf"
                PrometheusText.appendSample(name + "_bucket", labelNames: labelNames, labelValues: labelValues,
                                            extra: ("le", bound), value: Double(cumulative), to: &output)
            }
            PrometheusText.appendSample(name + "_sum", labelNames: labelNames, labelValues: labelValues,
                                        value: entry.sum, to: &output)
            PrometheusText.appendSample(name + "_count", labelNames: labelNames, labelValues: labelValues,
                                        value: Double(entry.count), to: &output)
        }
    }
}

extension Histogram.Series {
    mutating func record(slot: Int, value: Double) {
        counts[slot] += 1
        sum += value
        count += 1
    }
}
