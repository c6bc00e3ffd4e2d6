import Core

/// Writing header lines into an output buffer. Every response head and
/// every upstream request passes through here, so each string is copied
/// once, from its contiguous bytes, into room reserved for the whole line:
/// `append(contentsOf: string.utf8)` goes through a generic sequence copy
/// that checks capacity per call and retains the string around it.
extension Array where Element == UInt8 {
    /// Appends `name: value\r\n`.
    @inlinable
    public mutating func appendField(_ name: String, _ value: String) {
        name.withContiguousUTF8 { name in
            value.withContiguousUTF8 { value in
                appendUninitialized(name.count + value.count + 4) { out in
                    var out = out
                    out.copy(name)
                    out[0] = 0x3A // ':'
                    out[1] = 0x20 // ' '
                    out += 2
                    out.copy(value)
                    out[0] = 0x0D
                    out[1] = 0x0A
                }
            }
        }
    }

    /// Appends a string's UTF-8 bytes.
    @inlinable
    public mutating func appendUTF8(_ string: String) {
        string.withContiguousUTF8 { bytes in
            appendUninitialized(bytes.count) { out in
                var out = out
                out.copy(bytes)
            }
        }
    }

    /// Appends `count` bytes that `write` fills, starting at the pointer
    /// it gets; it must write all of them.
    @inlinable
    mutating func appendUninitialized(_ count: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Void) {
        let start = self.count
        reserveCapacity(start + count)
        append(contentsOf: repeatElement(0, count: count))
        withUnsafeMutableBufferPointer { write($0.baseAddress! + start) }
    }
}

extension UnsafeMutablePointer<UInt8> {
    /// Copies `bytes` here and moves past them.
    @inlinable
    mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let base = bytes.baseAddress { update(from: base, count: bytes.count) }
        self += bytes.count
    }
}
