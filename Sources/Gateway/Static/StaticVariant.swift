import HTTP
import System

/// The encodings a static file may be stored in: itself, or a
/// precompressed sibling (`app.js.br`, `app.js.gz`) made at build time.
enum StaticEncoding: Sendable, CaseIterable {
    case identity, brotli, gzip

    /// What the sibling's name adds to the file's.
    var suffix: String {
        switch self {
        case .identity: ""
        case .brotli: ".br"
        case .gzip: ".gz"
        }
    }

    /// Its `Content-Encoding` token; nil for the file itself.
    var token: String? {
        switch self {
        case .identity: nil
        case .brotli: "br"
        case .gzip: "gzip"
        }
    }
}

/// One encoding of a static file as it is served: its body and both of
/// its answers' fields, made once when the file was read, so serving it
/// builds nothing.
struct StaticVariant: Sendable {
    /// Where the body comes from.
    enum Body: Sendable {
        /// Read whole and kept (a small file).
        case bytes([UInt8])
        /// Read in pieces while it is sent (a large file, never cached).
        case file(ReadOnlyFile)
    }

    let encoding: StaticEncoding
    /// The file's status as it was opened, which revalidation compares.
    let status: FileStatus
    /// The strong validator, quotes included.
    let etag: [UInt8]
    let body: Body
    /// The fields of a 200.
    let okFields: HTTPHeaders
    /// The fields of a 304.
    let notModifiedFields: HTTPHeaders

    /// `"<size>-<mtime ns>-<inode>[-br|-gz]"` in hex: a new version of the
    /// file, or another encoding of it, has another one.
    static func etag(_ status: FileStatus, _ encoding: StaticEncoding) -> String {
        "\"\(String(status.size, radix: 16))-\(String(status.modified, radix: 16))-\(String(status.inode, radix: 16))"
            + (encoding.token.map { "-" + $0 } ?? "") + "\""
    }

    /// The bytes kept in memory (0 for a file read while sent).
    var memoryBytes: Int {
        if case .bytes(let bytes) = body { bytes.count } else { 0 }
    }
}
