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

/// A metric's series by label values. An unlabelled metric's one series
/// is kept apart, so updating it hashes nothing.
struct SeriesTable<Value> {
    private var unlabelled: Value?
    private var labelled: [[String]: Value] = [:]

    /// `unlabelled` is the starting value of an unlabelled metric, nil for
    /// a labelled one.
    init(unlabelled: Value?) { self.unlabelled = unlabelled }

    subscript(labelValues: [String]) -> Value? {
        labelValues.isEmpty ? unlabelled : labelled[labelValues]
    }

    mutating func update(_ labelValues: [String], default initial: @autoclosure () -> Value, _ change: (inout Value) -> Void) {
        if labelValues.isEmpty {
            if unlabelled == nil { unlabelled = initial() }
            change(&unlabelled!)
        } else {
            change(&labelled[labelValues, default: initial()])
        }
    }

    /// Every series, in a stable order: label values element by element,
    /// then by length.
    func sorted() -> [(labelValues: [String], value: Value)] {
        if let unlabelled { return [([], unlabelled)] }
        return labelled.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.key, $0.value) }
    }
}
