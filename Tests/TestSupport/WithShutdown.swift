/// Runs `body` with `resource`, then `shutdown`, whether `body` returns or
/// throws: the fixtures of the store conformance suites.
public func withShutdown<Resource, T>(_ resource: Resource, shutdown: (Resource) async -> Void,
                                      _ body: (Resource) async throws -> T) async throws -> T {
    do {
        let result = try await body(resource)
        await shutdown(resource)
        return result
    } catch {
        await shutdown(resource)
        throw error
    }
}
