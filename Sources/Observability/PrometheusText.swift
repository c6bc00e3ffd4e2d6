/// Pieces of the Prometheus text exposition format, version 0.0.4.
enum PrometheusText {
    /// The `Content-Type` of a rendered registry.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// A sample value: integers without a fraction (`3`), other numbers in
    /// Swift's shortest round-trip form (`0.25`, `1e-05`), `+Inf`, `-Inf`, `NaN`.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// HELP text: `\` becomes `\\` and a newline `\n`.
    static func escapeHelp(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\n" }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A label value: `\` becomes `\\`, `"` becomes `\"`, a newline `\n`.
    static func escapeLabelValue(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return text }
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Appends `name{a="x",b="y"} value\n`; `extra` is one more label
    /// (a histogram's `le`) written last.
    static func appendSample(_ name: String, labelNames: [String], labelValues: [String],
                             extra: (String, String)? = nil, value: Double, to output: inout String) {
        output += name
        if !labelNames.isEmpty || extra != nil {
            output += "{"
            var first = true
            for (label, value) in zip(labelNames, labelValues) {
                if !first { output += "," }
                first = false
                output += "\(label)=\"\(escapeLabelValue(value))\""
            }
            if let (label, value) = extra {
                if !first { output += "," }
                output += "\(label)=\"\(escapeLabelValue(value))\""
            }
            output += "}"
        }
        output += " \(format(value))\n"
    }

    /// Whether `name` is a valid metric name: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isValidMetricName(_ name: String) -> Bool {
        isName(name, allowingColon: true)
    }

    /// Whether `name` is a valid label name: `[a-zA-Z_][a-zA-Z0-9_]*`, not
    /// starting with the reserved `__`.
    static func isValidLabelName(_ name: String) -> Bool {
        isName(name, allowingColon: false) && !name.hasPrefix("__")
    }

    private static func isName(_ name: String, allowingColon: Bool) -> Bool {
        guard let first = name.utf8.first else { return false }
        func isStart(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
                || (allowingColon && byte == 0x3A)
        }
        return isStart(first) && name.utf8.dropFirst().allSatisfy { isStart($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}
