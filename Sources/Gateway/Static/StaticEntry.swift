import HTTP
import System

/// A static file found for a request: its encodings (itself first, then
/// the precompressed siblings present) and when `stat` last confirmed them.
struct StaticEntry: Sendable {
    /// The real path of the file itself.
    let path: String
    let variants: [StaticVariant]
    /// When it was last read or checked, on the responder's clock.
    let checked: UInt64

    /// Every encoding is in memory: it may be cached and served on the loop.
    var isInMemory: Bool {
        variants.allSatisfy { if case .bytes = $0.body { true } else { false } }
    }

    var memoryBytes: Int { variants.reduce(0) { $0 + $1.memoryBytes } }

    /// The same entry, confirmed by `stat` at `now`.
    func checked(at now: UInt64) -> StaticEntry {
        StaticEntry(path: path, variants: variants, checked: now)
    }

    /// The variant the request takes: brotli over gzip over the file itself.
    func variant(for conditions: StaticConditions) -> StaticVariant {
        var chosen = variants[0]
        for variant in variants.dropFirst() {
            switch variant.encoding {
            case .brotli where conditions.takesBrotli: return variant
            case .gzip where conditions.takesGzip: chosen = variant
            default: break
            }
        }
        return chosen
    }

    /// The answer: 304 when the request holds the chosen variant's
    /// validator, else 200 with its body (the server leaves the body out
    /// of an answer to HEAD). `reads` reads a large file's pieces.
    func response(for conditions: StaticConditions, reads: StaticReads) -> HTTPResponse {
        let variant = variant(for: conditions)
        if conditions.holds(variant.etag) {
            return HTTPResponse(status: .notModified, headers: variant.notModifiedFields)
        }
        switch variant.body {
        case .bytes(let bytes):
            return HTTPResponse(status: .ok, headers: variant.okFields, bytes: bytes)
        case .file(let file):
            return HTTPResponse(status: .ok, headers: variant.okFields, body: reads.stream(file))
        }
    }
}
