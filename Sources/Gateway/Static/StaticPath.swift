import Core

/// Where a request path points below the static root, or nothing: the
/// path safety rules in one place (Docs/static-files.md).
struct StaticPath: Sendable, Hashable {
    /// The decoded segments joined by `/` (empty for the root).
    let relative: String
    /// The path ends in `/` (or is `/`): a directory's index is meant.
    let isDirectory: Bool

    /// The file's own name: its last segment, or nil for a directory.
    var name: Substring? {
        isDirectory ? nil : relative.split(separator: "/").last
    }

    /// The place `path` (without its query) names, or nil when it is
    /// refused: not starting with `/`, under the gateway's own `/bff/` (in
    /// any case), an empty segment (`//`) other than a last `/`, a `#`, a
    /// malformed escape, and after decoding once (`%2e` is `.`) a
    /// segment that holds `/`, `\` or NUL or starts with `.` (`.`, `..`
    /// and every hidden file or directory), or is not UTF-8.
    init?(_ path: Substring) {
        if let plain = Self.plain(path) {
            self = plain
            return
        }
        var segments: [String] = []
        var isDirectory = false
        var refused = false
        path.withContiguousUTF8 { bytes in
            guard bytes.first == UInt8(ascii: "/"), !Self.isOwn(bytes) else {
                refused = true
                return
            }
            var start = 1
            for index in 1...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                if index == start {
                    // Empty: only the last segment may be (`/` or `/dir/`).
                    guard index == bytes.count else {
                        refused = true
                        return
                    }
                    isDirectory = true
                    break
                }
                guard let segment = Self.decode(UnsafeBufferPointer(rebasing: bytes[start..<index])) else {
                    refused = true
                    return
                }
                segments.append(segment)
                start = index + 1
            }
        }
        guard !refused else { return nil }
        relative = segments.joined(separator: "/")
        self.isDirectory = isDirectory || segments.isEmpty
    }

    /// The place of a path without `%` (the usual case), taken as it is
    /// with no copy of its segments (a name up to 15 bytes is a small
    /// string, stored inline); nil when it has a `%` or is refused, and
    /// the decoding reading above then decides.
    private static func plain(_ path: Substring) -> StaticPath? {
        let clean = path.withContiguousUTF8 { bytes -> Bool in
            guard bytes.first == UInt8(ascii: "/"), !isOwn(bytes) else { return false }
            var start = 1
            for index in 1...bytes.count {
                let byte = index == bytes.count ? UInt8(ascii: "/") : bytes[index]
                switch byte {
                case UInt8(ascii: "/"):
                    // Empty only as the last segment; never a dot first.
                    if index == start, index < bytes.count { return false }
                    start = index + 1
                case UInt8(ascii: "%"), UInt8(ascii: "#"), UInt8(ascii: "\\"), 0:
                    return false
                case UInt8(ascii: "."):
                    if index == start { return false }
                default:
                    break
                }
            }
            return true
        }
        guard clean else { return nil }
        let isDirectory = path.hasSuffix("/")
        let body = path.dropFirst().dropLast(isDirectory ? 1 : 0)
        return StaticPath(relative: String(body), isDirectory: isDirectory || body.isEmpty)
    }

    private init(relative: String, isDirectory: Bool) {
        self.relative = relative
        self.isDirectory = isDirectory
    }

    /// A place given as a relative path the configuration checked (the fallback file).
    init(file relative: String) {
        self.relative = relative
        isDirectory = false
    }

    /// Whether the path is under `/bff/` (or is `/bff`), in any case.
    private static func isOwn(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Letters compared with their case bit set; no array made per request.
        guard bytes.count >= 4, bytes[0] == UInt8(ascii: "/"), bytes[1] | 0x20 == UInt8(ascii: "b"),
              bytes[2] | 0x20 == UInt8(ascii: "f"), bytes[3] | 0x20 == UInt8(ascii: "f") else { return false }
        return bytes.count == 4 || bytes[4] == UInt8(ascii: "/")
    }

    /// One segment percent-decoded once, or nil when it is refused.
    private static func decode(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            var byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < raw.count, let high = PercentDecoding.hexValue(raw[index + 1]),
                      let low = PercentDecoding.hexValue(raw[index + 2]) else {
                    return nil
                }
                byte = high << 4 | low
                index += 3
            } else {
                if byte == UInt8(ascii: "#") { return nil }
                index += 1
            }
            guard byte != UInt8(ascii: "/"), byte != UInt8(ascii: "\\"), byte != 0 else { return nil }
            decoded.append(byte)
        }
        guard decoded.first != UInt8(ascii: ".") else { return nil }
        return String(validating: decoded, as: UTF8.self)
    }
}
