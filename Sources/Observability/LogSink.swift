/// Where a ``Logger``'s lines go.
///
/// - ``standardOutput``: file descriptor 1, one `write(2)` per line (Glibc's
///   `stdout` stream is neither used nor needed).
/// - ``capturing(_:)``: into a ``LogCapture``, for tests; ``discarding``: nowhere.
/// - ``init(_:)``: any closure that takes a line (without its newline).
public struct LogSink: Sendable {
    enum Target: Sendable {
        case descriptor(FileDescriptorWriter)
        case lines(@Sendable (String) -> Void)
    }

    let target: Target

    /// Lines to standard output (file descriptor 1), newline-terminated.
    public static let standardOutput = LogSink(target: .descriptor(FileDescriptorWriter(descriptor: 1)))

    /// Lines to standard error (file descriptor 2), newline-terminated.
    public static let standardError = LogSink(target: .descriptor(FileDescriptorWriter(descriptor: 2)))

    /// Lines thrown away (benchmarks, tests that do not look at logs).
    public static let discarding = LogSink { _ in }

    /// Lines appended to `capture`.
    public static func capturing(_ capture: LogCapture) -> LogSink {
        LogSink { capture.append($0) }
    }

    /// Lines handed to `write`, one call per line, without the newline. It
    /// may be called from several threads at once.
    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.target = .lines(write)
    }

    init(target: Target) { self.target = target }

    /// Delivers one finished line (no newline yet); `line` may be changed.
    func emit(_ line: inout [UInt8]) {
        switch target {
        case .descriptor(let writer):
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes { writer.write($0) }
        case .lines(let write):
            write(String(decoding: line, as: UTF8.self))
        }
    }
}
