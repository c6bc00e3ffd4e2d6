import Synchronization

/// A value that only goes up: requests served, bytes sent. Made by
/// ``MetricsRegistry/counter(_:help:labels:)``; by convention its name ends
/// in `_total`.
public final class Counter: Sendable, MetricFamily {
    public let name: String
    public let help: String
    public let labelNames: [String]
    static var typeName: String { "counter" }
    private let series: Mutex<SeriesTable<Double>>

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        // An unlabelled counter exists, at zero, from the start.
        self.series = Mutex(SeriesTable(unlabelled: labelNames.isEmpty ? 0 : nil))
    }

    /// Adds `amount` (default 1) to the series named by `labelValues`, one
    /// value per label, in the order the labels were registered. A negative
    /// amount is a programming error: it traps in debug builds and is
    /// ignored in release builds.
    public func increment(_ labelValues: [String] = [], by amount: Double = 1) {
        checkArity(labelValues)
        assert(amount >= 0, "counter \(name) cannot go down")
        guard amount >= 0 else { return }
        series.withLock { $0.update(labelValues, default: 0) { $0 += amount } }
    }

    /// The current value of one series (zero if never incremented).
    public func value(_ labelValues: [String] = []) -> Double {
        series.withLock { $0[labelValues] ?? 0 }
    }

    func renderSamples(into output: inout String) {
        for (labelValues, value) in series.withLock({ $0.sorted() }) {
            PrometheusText.appendSample(name, labelNames: labelNames, labelValues: labelValues, value: value, to: &output)
        }
    }
}
