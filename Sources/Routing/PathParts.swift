#if canImport(Glibc)
import Glibc
#endif

/// A path's non-empty segments: byte ranges of `bytes`.
struct PathParts {
    let bytes: UnsafeBufferPointer<UInt8>
    let ranges: UnsafeBufferPointer<Range<Int>>
    var count: Int { ranges.count }

    func segment(_ index: Int, equals literal: [UInt8]) -> Bool {
        let range = ranges[index]
        return range.count == literal.count
            && literal.withUnsafeBufferPointer { memcmp(bytes.baseAddress! + range.lowerBound, $0.baseAddress!, range.count) == 0 }
    }

    func string(_ index: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[ranges[index]]), as: UTF8.self)
    }

    /// Writes the ranges of `bytes`' non-empty `/`-separated segments into
    /// `ranges` (room for `bytes.count / 2 + 1`: each takes a byte and a
    /// slash but the last) and returns how many there are.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, into ranges: UnsafeMutableBufferPointer<Range<Int>>) -> Int {
        var (count, start) = (0, 0)
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            if start != index {
                ranges.initializeElement(at: count, to: start..<index)
                count += 1
            }
            start = index + 1
        }
        return count
    }
}
