import Configuration
import HTTP
import System

/// Finds, checks and reads the file for a place below the root: the
/// blocking half of static serving, run only on `StaticReads`' queue.
struct StaticLoader: Sendable {
    /// A file up to this size is read whole and kept in memory.
    static let memoryLimit = 64 * 1024

    /// The root's real path (symbolic links resolved).
    let root: String
    /// The security fields of an HTML answer.
    let htmlFields: [HeaderField]

    /// The entry for `place`, or nil when it names no regular file inside
    /// the root. `cached` is reused (its bytes not read again) when every
    /// encoding's status is unchanged.
    func load(_ place: StaticPath, cached: StaticEntry?, now: UInt64) -> StaticEntry? {
        guard let (path, name) = locate(place) else { return nil }
        var found: [(StaticEncoding, String, FileStatus)] = []
        for encoding in StaticEncoding.allCases {
            let candidate = encoding == .identity ? path : inside(path + encoding.suffix)
            guard let candidate, let status = FileStatus.of(path: candidate), status.kind == .regular else {
                if encoding == .identity { return nil }
                continue
            }
            found.append((encoding, candidate, status))
        }
        if let cached, cached.path == path, cached.variants.map(\.encoding) == found.map(\.0),
           zip(cached.variants, found).allSatisfy({ $0.status == $1.2 }) {
            return cached.checked(at: now)
        }
        let type = StaticContentType.of(name)
        let cacheControl = StaticCacheRule.cacheControl(name: name, type: type)
        var variants: [StaticVariant] = []
        for (encoding, candidate, _) in found {
            guard let variant = open(candidate, encoding, type: type, cacheControl: cacheControl, varies: found.count > 1) else {
                if encoding == .identity { return nil }
                continue
            }
            variants.append(variant)
        }
        return StaticEntry(path: path, variants: variants, checked: now)
    }

    /// The real path of the file `place` names and the name its type and
    /// cache rule go by: a directory means its `index.html`. Nil when
    /// nothing is there or the real path leaves the root or passes through
    /// a hidden name (a symbolic link inside the root may point at either).
    private func locate(_ place: StaticPath) -> (String, Substring)? {
        let logical = place.relative.isEmpty ? root : root + "/" + place.relative
        guard var path = inside(logical), var status = FileStatus.of(path: path) else { return nil }
        var name = place.name ?? "index.html"
        if status.kind == .directory {
            guard let index = inside(path + "/index.html"), let indexStatus = FileStatus.of(path: index) else { return nil }
            (path, status, name) = (index, indexStatus, "index.html")
        }
        return status.kind == .regular ? (path, name) : nil
    }

    /// `path` resolved (`realpath`), when it exists, stays inside the root
    /// and no part of it below the root starts with `.`.
    private func inside(_ path: String) -> String? {
        guard let real = FileStatus.realPath(path) else { return nil }
        if real == root { return real }
        guard real.hasPrefix(root == "/" ? "/" : root + "/") else { return nil }
        let below = real.dropFirst(root == "/" ? 1 : root.utf8.count + 1)
        return below.split(separator: "/").contains { $0.hasPrefix(".") } ? nil : real
    }

    /// One encoding opened (and read, when small) with its answers' fields.
    private func open(_ path: String, _ encoding: StaticEncoding, type: String, cacheControl: String,
                      varies: Bool) -> StaticVariant? {
        guard let file = try? ReadOnlyFile(path: path), file.status.kind == .regular else { return nil }
        var body = StaticVariant.Body.file(file)
        if file.status.size <= Self.memoryLimit {
            guard let bytes = try? file.read(at: 0, count: file.status.size) else { return nil }
            body = .bytes(bytes)
        }
        let etag = StaticVariant.etag(file.status, encoding)
        var common = HTTPHeaders()
        common.add("ETag", etag)
        common.add("Cache-Control", cacheControl)
        if varies { common.add("Vary", "Accept-Encoding") }
        common.add("X-Content-Type-Options", "nosniff")
        var ok = common
        ok.add("Content-Type", type)
        if let token = encoding.token { ok.add("Content-Encoding", token) }
        if StaticContentType.isHTML(type) {
            for field in htmlFields { ok.add(field.name, field.value) }
        }
        return StaticVariant(encoding: encoding, status: file.status, etag: Array(etag.utf8), body: body,
                             okFields: ok, notModifiedFields: common)
    }
}
