import Configuration
import Foundation
import HTTP
import Observability
import Routing
import System
import TestSupport
@testable import Gateway

/// A directory of static files in a fresh temporary place, served by a
/// `StaticFiles` route alone on a loopback server whose loop reads a
/// `ManualLoopClock` (revalidation moves when the test says). Beside the
/// root, `outside/secret.txt` is a file no request may reach.
final class StaticSite: Sendable {
    let base: String
    let root: String
    let clock: ManualLoopClock
    let group: EventLoopGroup
    let server: HTTPServer

    static let secret = "outside-the-root"

    private init(base: String, root: String, group: EventLoopGroup, server: HTTPServer, clock: ManualLoopClock) {
        self.clock = clock
        self.base = base
        self.root = root
        self.group = group
        self.server = server
    }

    /// `prepare` writes the files (`write`, `link`) before the server starts.
    static func start(fallback: String? = "index.html", htmlFields: [HeaderField] = HeaderField.staticHTMLDefaults,
                      revalidate: Duration = .seconds(1), _ prepare: (StaticSite.Files) throws -> Void) async throws -> StaticSite {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("bff-static-\(UUID().uuidString)").path
        let root = base + "/site"
        let files = Files(root: root)
        try Files(root: base).write("outside/secret.txt", secret)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try prepare(files)
        let clock = ManualLoopClock()
        let group = try EventLoopGroup(loops: 1, name: "static", clock: clock)
        let staticFiles = try StaticFiles(root: root, fallback: fallback, htmlFields: htmlFields, revalidate: revalidate,
                                          clock: clock)
        var router = RouterBuilder()
        staticFiles.register(in: &router)
        let app = Application(router: router.build(), middlewares: [ErrorMiddleware()], logger: Logger(level: .error, sink: .capturing(LogCapture())))
        let server = HTTPServer(configuration: HTTPServerConfiguration(address: SocketAddress(ip: .v4(0x7F00_0001), port: 0)),
                                loops: group.loops, responder: app.respond, immediate: app.immediateResponder)
        try await server.start()
        return StaticSite(base: base, root: root, group: group, server: server, clock: clock)
    }

    func stop() async {
        await server.shutdown(gracePeriod: .milliseconds(200))
        group.shutdown()
        try? FileManager.default.removeItem(atPath: base)
    }

    var port: UInt16 { server.localAddress!.port }
    var files: Files { Files(root: root) }

    /// Writes and links files below a root.
    struct Files {
        let root: String

        func write(_ path: String, _ text: String) throws { try write(path, Array(text.utf8)) }

        func write(_ path: String, _ bytes: [UInt8]) throws {
            let full = (root as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: full))
        }

        /// A symbolic link at `path` to `target` (as written: relative to the link's directory, or absolute).
        func link(_ path: String, to target: String) throws {
            let full = (root as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: target)
        }
    }

    /// One request with `Connection: close`; the answer's head and
    /// whatever followed it (nothing, for HEAD or a 304).
    func request(_ target: String, _ fields: [String] = [], method: String = "GET") async throws -> StaticAnswer {
        let client = try RawClient(port: port, timeout: 15)
        let lines = ["\(method) \(target) HTTP/1.1", "Host: localhost", "Connection: close"] + fields
        await client.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
        return try Self.parse(await client.readToEnd())
    }

    static func parse(_ bytes: [UInt8]) throws -> StaticAnswer {
        let marker: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == marker }) else {
            throw SiteError.noAnswer
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines[0].split(separator: " ")
        guard status.count >= 2, let code = Int(status[1]) else { throw SiteError.noAnswer }
        let fields = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return StaticAnswer(status: code, headers: fields, body: Array(bytes[(end + 4)...]))
    }

    enum SiteError: Error { case noAnswer }
}

/// An answer as it went over the wire.
struct StaticAnswer: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    /// The first field called `name`, in any case.
    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Every field called `name`.
    func values(_ name: String) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}
