import Configuration
import Core
#if canImport(Glibc)
import Glibc
#endif
import HTTP

/// Which paths a route sends upstream: below its prefix, never the
/// gateway's own, and never one that could climb out of the upstream base.
extension APIProxy {
    /// Whether `path` starts with the route's `prefix` and is not under
    /// `/bff/` (in any case), which the gateway's own endpoints use: a
    /// route whose prefix covers it (`/`) never sends such a path upstream
    /// with the user's token, be it a typo or a method the endpoint does
    /// not take. By bytes, in place: the generic views' searches showed in
    /// profiles, and both are ASCII.
    static func isBelow(_ path: Substring, prefix: String) -> Bool {
        path.withContiguousUTF8 { path in
            prefix.withContiguousUTF8 { prefix in
                guard path.count >= prefix.count, memcmp(path.baseAddress!, prefix.baseAddress!, prefix.count) == 0
                else { return false }
                let own: StaticString = "/bff/"
                return !String.equalIgnoringASCIICase(
                    UnsafeBufferPointer(rebasing: path.prefix(own.utf8CodeUnitCount)),
                    UnsafeBufferPointer(start: own.utf8Start, count: own.utf8CodeUnitCount))
            }
        }
    }

    /// Why the part of a path after a route's prefix (and its query) must
    /// not go upstream, or nil. The joined upstream path has to stay below
    /// the route's base on any server: no `#` (libcurl would cut the URL
    /// there), no `\` (some servers read it as `/`), no empty segment
    /// (`//host` reads as an authority), no encoded `/`, `\` or NUL, and no
    /// `.` or `..` segment, plain, percent-encoded, or before a `;`
    /// parameter (`..;/`, which servlet containers resolve).
    static func targetProblem(path: Substring, query: Substring?) -> String? {
        if query?.utf8.contains(UInt8(ascii: "#")) == true { return "The path must not contain # or \\." }
        // Over the contiguous bytes: indexing the generic UTF-8 view showed
        // in profiles, and every proxied request passes here.
        return path.withContiguousUTF8 { bytes in
            var segmentStart = 0
            for index in bytes.indices {
                switch bytes[index] {
                case UInt8(ascii: "#"), UInt8(ascii: "\\"):
                    return "The path must not contain # or \\."
                case UInt8(ascii: "%"):
                    if let escaped = escapedByte(bytes, at: index),
                       escaped == UInt8(ascii: "/") || escaped == UInt8(ascii: "\\") || escaped == 0 {
                        return "The path must not contain an encoded /, \\ or NUL."
                    }
                case UInt8(ascii: "/"):
                    if index == segmentStart { return "The path must not contain empty segments (//)." }
                    if isDotSegment(UnsafeBufferPointer(rebasing: bytes[segmentStart..<index])) {
                        return "The path must not contain . or .. segments."
                    }
                    segmentStart = index + 1
                default:
                    break
                }
            }
            if isDotSegment(UnsafeBufferPointer(rebasing: bytes[segmentStart...])) {
                return "The path must not contain . or .. segments."
            }
            return nil
        }
    }

    /// The longer prefixes configured below `route`'s, each as the
    /// segments that follow it, compared loosely (`looseSegment`):
    /// `/api/admin/` below `/api/` is `["admin"]`.
    static func nestedPrefixes(below route: RouteConfig, in routes: [RouteConfig]) -> [[String]] {
        routes.compactMap { other in
            guard other.prefix.utf8.count > route.prefix.utf8.count, other.prefix.hasPrefix(route.prefix) else { return nil }
            return other.prefix.dropFirst(route.prefix.count).split(separator: "/").map(looseSegment)
        }
    }

    /// Whether `rest` (a path after its route's prefix) begins with one of
    /// `nested` written another way: a letter in another case, an
    /// unreserved character percent-encoded, a `;` parameter on a segment.
    /// The router compares bytes, so such a path came to the shorter
    /// prefix; an upstream that decodes, folds case or drops parameters
    /// would read it as the longer one, whose methods, token mode or body
    /// limit it would then bypass.
    static func spells(_ rest: Substring, _ nested: [[String]]) -> Bool {
        guard !nested.isEmpty else { return false }
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false)
        return nested.contains { prefix in
            segments.count >= prefix.count && zip(prefix, segments).allSatisfy { $0 == looseSegment($1) }
        }
    }

    /// A segment as lenient servers may read it: up to its first `;`,
    /// escapes of unreserved characters decoded, ASCII letters lower-case.
    static func looseSegment(_ segment: Substring) -> String {
        let bytes = Array(segment.utf8.prefix { $0 != UInt8(ascii: ";") })
        var loose: [UInt8] = []
        var index = 0
        while index < bytes.count {
            var byte = bytes[index]
            if byte == UInt8(ascii: "%"), let escaped = bytes.withUnsafeBufferPointer({ escapedByte($0, at: index) }),
               isUnreserved(escaped) {
                byte = escaped
                index += 2
            }
            loose.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
            index += 1
        }
        return String(decoding: loose, as: UTF8.self)
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// The byte a `%XX` escape at `index` stands for, or nil when it is not one.
    private static func escapedByte(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt8? {
        guard index + 2 < bytes.count, let high = PercentDecoding.hexValue(bytes[index + 1]),
              let low = PercentDecoding.hexValue(bytes[index + 2]) else { return nil }
        return high << 4 | low
    }

    /// A segment that is `.` or `..`, each dot written `.` or `%2e`, up to
    /// an optional `;` parameter.
    private static func isDotSegment(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var dots = 0
        while index < segment.count, segment[index] != UInt8(ascii: ";") {
            if segment[index] == UInt8(ascii: ".") {
                index += 1
            } else if segment[index] == UInt8(ascii: "%"), escapedByte(segment, at: index) == UInt8(ascii: ".") {
                index += 3
            } else {
                return false
            }
            dots += 1
            if dots > 2 { return false }
        }
        return dots == 1 || dots == 2
    }
}
