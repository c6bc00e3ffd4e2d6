import Configuration
import HTTP
import Routing
import System

/// Serves the files below BFF_STATIC_ROOT to GET and HEAD
/// (Docs/static-files.md): registered last, as `/*`, so every `/bff/`
/// endpoint and API route wins. A small file is read once, kept, and
/// answered on the loop thread without a task until its revalidation is
/// due; everything else (a first read, a `stat` check, a large file, the
/// single-page fallback) is done in a task, with each blocking call on a
/// queue of its own.
public struct StaticFiles: Responder {
    private let loader: StaticLoader
    private let cache = StaticCache()
    private let reads = StaticReads()
    private let fallback: StaticPath?
    private let revalidate: UInt64
    private let clock: any LoopClock

    /// Why the static files cannot be served.
    public enum Problem: Error, Equatable {
        /// The root does not exist, or is not a directory.
        case noDirectory(String)
    }

    /// Files below `root` (resolved here, once: call at start-up), the
    /// single-page `fallback` file below it (nil for none), `htmlFields`
    /// on HTML answers, a kept file checked again after `revalidate` on
    /// `clock`.
    public init(root: String, fallback: String?, htmlFields: [HeaderField], revalidate: Duration,
                clock: any LoopClock = MonotonicClock()) throws(Problem) {
        guard let real = FileStatus.realPath(root), FileStatus.of(path: real)?.kind == .directory else {
            throw .noDirectory(root)
        }
        loader = StaticLoader(root: real, htmlFields: htmlFields)
        self.fallback = fallback.map { StaticPath(file: $0) }
        self.revalidate = revalidate.nanoseconds
        self.clock = clock
    }

    /// The files from `config`'s BFF_STATIC_ settings, or nil when
    /// BFF_STATIC_ROOT is not set.
    public init?(_ config: GatewayConfig) throws(Problem) {
        guard let root = config.staticRoot else { return nil }
        try self.init(root: root, fallback: config.staticFallback, htmlFields: config.staticHTMLHeaders,
                      revalidate: config.staticRevalidate)
    }

    /// Adds the `/*` route for GET (and so HEAD); any other method gets
    /// 405 with `Allow`. Call after every other route: a route added later
    /// with a prefix of its own still wins, but one for `/*` would not.
    public func register(in router: inout RouterBuilder) {
        router.add([.get], "/*", options: RouteOptions(maxBodyBytes: 0, csrf: false), responder: self)
    }

    /// The answer on the loop: a refused path's 404, or a kept file
    /// checked less than the revalidation interval ago.
    public func fastPath(for request: HTTPRequest, context: RequestContext) -> FastPath? {
        guard let place = StaticPath(request.path) else { return .now(Self.refuse) }
        return cache.fresh(place, now: clock.now(), interval: revalidate).map { .now($0.answer) }
    }

    /// A fast path for kept files and refusals.
    public var hasFastPath: Bool { true }

    /// The file, its directory's `index.html`, or the fallback for a path
    /// without a file and without an extension when the request takes
    /// HTML; 404 otherwise (never a listing).
    public func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        guard let place = StaticPath(request.path) else { throw Self.notFound }
        let conditions = StaticConditions(request.headers)
        if let entry = await entry(for: place) {
            return entry.response(for: conditions, reads: reads)
        }
        if let fallback, !place.isDirectory, place.name?.contains(".") == false, conditions.takesHTML,
           let entry = await entry(for: fallback) {
            return entry.response(for: conditions, reads: reads)
        }
        throw Self.notFound
    }

    /// The kept entry while fresh, else one loaded (or confirmed) on the
    /// queue, then kept when small.
    private func entry(for place: StaticPath) async -> StaticEntry? {
        let now = clock.now()
        if let fresh = cache.fresh(place, now: now, interval: revalidate) { return fresh.entry }
        let (loader, cached) = (loader, cache.entry(place))
        let loaded = await reads.run { loader.load(place, cached: cached, now: now) }
        cache.store(place, loaded, reads: reads)
        return loaded
    }

    /// No such file, or a path the rules refuse: the two look alike.
    static let notFound = HTTPError(.notFound, "not_found", "No such file.", headers: ["X-Content-Type-Options": "nosniff"])

    private static let refuse: ImmediateHandler = { _, _ in throw notFound }
}
