import Synchronization

/// A value that goes up and down: requests in flight, open connections.
/// Made by ``MetricsRegistry/gauge(_:help:labels:)``.
public final class Gauge: Sendable, MetricFamily {
    public let name: String
    public let help: String
    public let labelNames: [String]
    static var typeName: String { "gauge" }
    /// A labelled gauge's series.
    private let series = Mutex(SeriesTable<Double>(unlabelled: nil))
    /// An unlabelled gauge's one series, which exists at zero from the
    /// start: the bits of a `Double`, changed without a lock (requests in
    /// flight go up and down on every request).
    private let unlabelled = Atomic<UInt64>(0.0.bitPattern)

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
    }

    /// Sets the series named by `labelValues` to `value`.
    public func set(_ labelValues: [String] = [], to value: Double) {
        checkArity(labelValues)
        if labelValues.isEmpty {
            unlabelled.store(value.bitPattern, ordering: .relaxed)
        } else {
            series.withLock { $0.update(labelValues, default: 0) { $0 = value } }
        }
    }

    /// Adds `amount` (default 1).
    public func increment(_ labelValues: [String] = [], by amount: Double = 1) {
        checkArity(labelValues)
        guard labelValues.isEmpty else {
            series.withLock { $0.update(labelValues, default: 0) { $0 += amount } }
            return
        }
        var current = unlabelled.load(ordering: .relaxed)
        while true {
            let (exchanged, found) = unlabelled.compareExchange(
                expected: current, desired: (Double(bitPattern: current) + amount).bitPattern, ordering: .relaxed)
            if exchanged { return }
            current = found
        }
    }

    /// Subtracts `amount` (default 1).
    public func decrement(_ labelValues: [String] = [], by amount: Double = 1) {
        increment(labelValues, by: -amount)
    }

    /// The current value of one series (zero if never set).
    public func value(_ labelValues: [String] = []) -> Double {
        if labelValues.isEmpty { return Double(bitPattern: unlabelled.load(ordering: .relaxed)) }
        return series.withLock { $0[labelValues] ?? 0 }
    }

    func renderSamples(into output: inout String) {
        let all = labelNames.isEmpty ? [([], value())] : series.withLock { $0.sorted() }
        for (labelValues, value) in all {
            PrometheusText.appendSample(name, labelNames: labelNames, labelValues: labelValues, value: value, to: &output)
        }
    }
}
