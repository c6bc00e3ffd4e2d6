/// A FIFO of byte pieces that lets go of each piece as soon as it is taken
/// (an array indexed by a moving head would keep every taken piece alive
/// until the queue happened to run empty), and counts the bytes it holds.
struct PieceQueue {
    private var pieces: [[UInt8]] = []
    private var head = 0
    /// Bytes held, counting only what is left of a partly taken first piece.
    private(set) var bytes = 0
    /// How far into the first piece `takePrefix` has read.
    private var offset = 0

    var isEmpty: Bool { head == pieces.count }

    mutating func append(_ piece: [UInt8]) {
        guard !piece.isEmpty else { return }
        pieces.append(piece)
        bytes += piece.count
    }

    /// The next whole piece (or the rest of a partly read one).
    mutating func popFirst() -> [UInt8]? {
        guard head < pieces.count else { return nil }
        var piece = pieces[head]
        if offset > 0 { piece = Array(piece[offset...]) }
        release()
        bytes -= piece.count
        return piece
    }

    /// Copies up to `buffer.count` bytes out, across pieces; returns how many.
    mutating func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var copied = 0
        while copied < buffer.count, head < pieces.count {
            let piece = pieces[head]
            let count = min(buffer.count - copied, piece.count - offset)
            piece.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<(copied + count)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)]))
            }
            copied += count
            offset += count
            if offset == piece.count { release() }
        }
        bytes -= copied
        return copied
    }

    mutating func removeAll() {
        pieces.removeAll()
        head = 0
        offset = 0
        bytes = 0
    }

    /// Drops the first piece and compacts the storage now and then.
    private mutating func release() {
        pieces[head] = []
        head += 1
        offset = 0
        if head == pieces.count {
            pieces.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= pieces.count {
            pieces.removeFirst(head)
            head = 0
        }
    }
}
