import Synchronization

/// A value that goes up and down: requests in flight, open connections.
/// Made by ``MetricsRegistry/gauge(_:help:labels:)``.
public final class Gauge: Sendable, MetricFamily {
    public let name: String
    public let help: String
    public let labelNames: [String]
    static var typeName: String { "gauge" }
    private let series: Mutex<SeriesTable<Double>>

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        // An unlabelled gauge exists, at zero, from the start.
        self.series = Mutex(SeriesTable(unlabelled: labelNames.isEmpty ? 0 : nil))
    }

    /// Sets the series named by `labelValues` to `value`.
    public func set(_ labelValues: [String] = [], to value: Double) {
        checkArity(labelValues)
        series.withLock { $0.update(labelValues, default: 0) { $0 = value } }
    }

    /// Adds `amount` (default 1).
    public func increment(_ labelValues: [String] = [], by amount: Double = 1) {
        checkArity(labelValues)
        series.withLock { $0.update(labelValues, default: 0) { $0 += amount } }
    }

    /// Subtracts `amount` (default 1).
    public func decrement(_ labelValues: [String] = [], by amount: Double = 1) {
        increment(labelValues, by: -amount)
    }

    /// The current value of one series (zero if never set).
    public func value(_ labelValues: [String] = []) -> Double {
        series.withLock { $0[labelValues] ?? 0 }
    }

    func renderSamples(into output: inout String) {
        for (labelValues, value) in series.withLock({ $0.sorted() }) {
            PrometheusText.appendSample(name, labelNames: labelNames, labelValues: labelValues, value: value, to: &output)
        }
    }
}
