import Core

/// Writing a message head in one piece. Every response head and every
/// upstream request is written here: the head is sized first, then each
/// string is copied once, from its contiguous bytes, into memory of exactly
/// that size. Appending piece by piece (`append(contentsOf: string.utf8)`)
/// checks capacity and uniqueness per piece and goes through a generic
/// sequence copy that retains each string around it.
public struct ByteCursor {
    @usableFromInline var position: UnsafeMutablePointer<UInt8>
    @usableFromInline let end: UnsafeMutablePointer<UInt8>

    @inlinable
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        // A zero-sized buffer may have no address; nothing is written then.
        position = buffer.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!
        end = position + buffer.count
    }

    /// Every write is checked against the end: a head sized too small
    /// traps here instead of writing past its memory.
    @inlinable
    public mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= end - position, "message head larger than sized")
        if let base = bytes.baseAddress { position.update(from: base, count: bytes.count) }
        position += bytes.count
    }

    /// Writes one byte.
    @inlinable
    public mutating func write(_ byte: UInt8) {
        precondition(position < end, "message head larger than sized")
        position.pointee = byte
        position += 1
    }

    /// Writes `string`'s UTF-8 bytes.
    @inlinable
    public mutating func write(_ string: String) {
        string.withContiguousUTF8 { write($0) }
    }

    /// Writes `text`'s UTF-8 bytes.
    @inlinable
    public mutating func write(_ text: StaticString) {
        text.withUTF8Buffer { write($0) }
    }

    /// Writes the bytes of `bytes`, in order.
    @inlinable
    public mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// `name: value\r\n`; `ByteCursor.fieldSize` bytes.
    @inlinable
    public mutating func writeField(_ name: String, _ value: String) {
        write(name)
        write(0x3A) // ':'
        write(0x20) // ' '
        write(value)
        writeCRLF()
    }

    /// `name: value\r\n` for `headers`' field `index`; `headers.lineSize(at:)` bytes.
    @inlinable
    public mutating func writeField(of headers: HTTPHeaders, at index: Int) {
        headers.withField(at: index) { name, value in
            write(name)
            write(0x3A) // ':'
            write(0x20) // ' '
            write(value)
            writeCRLF()
        }
    }

    /// Writes a line end, CR LF.
    @inlinable
    public mutating func writeCRLF() {
        write(0x0D)
        write(0x0A)
    }

    /// The bytes `writeField(name, value)` writes: the name, `: `, the value and CRLF.
    @inlinable
    public static func fieldSize(_ name: String, _ value: String) -> Int {
        name.utf8.count + value.utf8.count + 4
    }

    @inlinable
    var isAtEnd: Bool { position == end }
}

extension Array where Element == UInt8 {
    /// Appends exactly `count` bytes, which `write` writes through a cursor
    /// (built on the stack, then copied in with one `memcpy`).
    @inlinable
    public mutating func append(count: Int, writing write: (inout ByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            var cursor = ByteCursor(buffer)
            write(&cursor)
            precondition(cursor.isAtEnd, "message head smaller than sized")
            append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }

    /// Exactly `count` bytes, which `write` writes through a cursor.
    @inlinable
    public init(count: Int, writing write: (inout ByteCursor) -> Void) {
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            var cursor = ByteCursor(buffer)
            write(&cursor)
            precondition(cursor.isAtEnd, "message head smaller than sized")
            initialized = count
        }
    }
}
