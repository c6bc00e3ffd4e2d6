/// One named metric with its HELP and TYPE, as kept by a ``MetricsRegistry``.
protocol MetricFamily: AnyObject, Sendable {
    var name: String { get }
    var help: String { get }
    var labelNames: [String] { get }
    /// The `# TYPE` word: `counter`, `gauge` or `histogram`.
    static var typeName: String { get }
    /// Appends the sample lines (not HELP/TYPE), in a stable order.
    func renderSamples(into output: inout String)
}

extension MetricFamily {
    /// Appends `# HELP`, `# TYPE` and the samples.
    func render(into output: inout String) {
        output += "# HELP \(name) \(PrometheusText.escapeHelp(help))\n"
        output += "# TYPE \(name) \(Self.typeName)\n"
        renderSamples(into: &output)
    }

    /// Traps when a caller passes the wrong number of label values: a
    /// programming error that the first test run shows.
    func checkArity(_ labelValues: [String]) {
        precondition(labelValues.count == labelNames.count,
                     "metric \(name) takes \(labelNames.count) label values, got \(labelValues.count)")
    }
}

/// Label sets in a stable order: element by element, then by length.
func labelValuesPrecede(_ lhs: [String], _ rhs: [String]) -> Bool {
    lhs.lexicographicallyPrecedes(rhs)
}
