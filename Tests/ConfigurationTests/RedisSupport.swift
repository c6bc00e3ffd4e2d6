import Foundation
import Testing
@testable import Configuration

/// The password the Redis tests put in URLs and files; no problem, summary
/// or description may ever contain it.
let redisPasswordMarker = "pw-Mark3r-77"

/// Files for the Redis settings in one fresh temporary directory, removed
/// by `remove()`.
struct RedisFiles {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bff-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Writes `contents` to `name` and returns its path.
    func write(_ name: String, _ contents: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A path in the directory where no file is.
    func missing(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Loads `environment`, expects exactly one problem, with `setting`, whose
/// text names the setting and mentions each of `mentions`, and never the
/// marker password; returns its message.
@discardableResult
func expectRedisProblem(_ environment: [String: String], setting: String, mentions: [String] = [],
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let problems = try loadProblems(environment, sourceLocation: sourceLocation)
    #expect(problems.map(\.setting) == [setting], sourceLocation: sourceLocation)
    let text = ConfigErrors(problems).description
    #expect(text.contains("\(setting): "), sourceLocation: sourceLocation)
    for word in mentions { #expect(text.contains(word), "\(text) should mention \(word)", sourceLocation: sourceLocation) }
    #expect(!text.contains(redisPasswordMarker), sourceLocation: sourceLocation)
    return problems.first?.message ?? ""
}
