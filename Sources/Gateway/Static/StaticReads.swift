import Dispatch
import HTTP
import System

/// Where static files are found and read: a serial Dispatch queue of
/// their own, whose thread may block on the disk while neither a loop
/// thread nor the cooperative pool does.
struct StaticReads: Sendable {
    /// How much of a large file is read and sent at a time.
    static let pieceBytes = 64 * 1024

    private let queue = DispatchQueue(label: "modgud-bff.static-files")

    /// Runs `work` on the queue and returns its outcome.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }

    /// A body that sends `file` (its size as opened) piece by piece, each
    /// read on the queue. A file cut short meanwhile ends the body early,
    /// and the server then resets the connection rather than end it cleanly.
    func stream(_ file: ReadOnlyFile) -> HTTPResponseBody {
        let size = file.status.size
        return .stream(length: size) { writer in
            var offset = 0
            while offset < size {
                let start = offset
                let piece = try await run { Result { () throws(SystemError) in try file.read(at: start, count: min(Self.pieceBytes, size - start)) } }.get()
                guard !piece.isEmpty else { return }
                try await writer.write(piece)
                offset += piece.count
            }
        }
    }
}
