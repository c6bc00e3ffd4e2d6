/// A token bucket's settings: `count` tokens per `period`, at most `burst`
/// held. Written `N/second|minute|hour[,burst=B]` (burst defaults to N),
/// or `off`.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    /// Tokens added per period.
    public var count: Int
    /// The period.
    public var period: Duration
    /// The bucket's size: how many requests may come at once.
    public var burst: Int

    /// A limit.
    public init(count: Int, period: Duration, burst: Int) {
        self.count = count
        self.period = period
        self.burst = burst
    }

    private static let units: [(String, Duration)] = [("second", .seconds(1)), ("minute", .seconds(60)), ("hour", .seconds(3600))]

    /// The written form, `N/unit,burst=B`.
    public var description: String {
        let unit = Self.units.first { $0.1 == period }?.0 ?? "\(period)"
        return "\(count)/\(unit),burst=\(burst)"
    }

    /// Parses the written form; `off` is `.success(nil)`.
    static func parse(_ text: String) -> Result<RateLimit?, ValueProblem> {
        if text.lowercased() == "off" { return .success(nil) }
        let problem = ValueProblem("\"\(text.prefix(60))\" must be N/second, N/minute or N/hour, optionally followed "
            + "by ,burst=B (N and B from 1 to 1000000), or off")
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return .failure(problem) }
        let rate = parts[0].split(separator: "/", omittingEmptySubsequences: false)
        guard rate.count == 2, let count = Lexical.unsignedInteger(rate[0]), (1...1_000_000).contains(count),
              let period = units.first(where: { $0.0 == rate[1].lowercased() })?.1
        else { return .failure(problem) }
        var burst = count
        if parts.count == 2 {
            guard parts[1].hasPrefix("burst="), let value = Lexical.unsignedInteger(parts[1].dropFirst(6)),
                  (1...1_000_000).contains(value) else { return .failure(problem) }
            burst = value
        }
        return .success(RateLimit(count: count, period: period, burst: burst))
    }
}
