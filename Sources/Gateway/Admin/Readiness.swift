/// One dependency `/readyz` asks about (Redis, Modgud, …).
public protocol ReadinessCheck: Sendable {
    var name: String { get }
    /// Nil when ready, else a short reason (never a secret or address).
    func check() async -> String?
}

/// A readiness check from a closure.
public struct ClosureReadinessCheck: ReadinessCheck {
    public let name: String
    private let body: @Sendable () async -> String?

    public init(_ name: String, _ body: @escaping @Sendable () async -> String?) {
        self.name = name
        self.body = body
    }

    public func check() async -> String? { await body() }
}
