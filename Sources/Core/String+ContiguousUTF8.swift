extension StringProtocol {
    /// Calls `body` with the text's UTF-8 bytes, contiguous: in place for
    /// native storage (every string on Linux), else from a copy.
    @inlinable
    public func withContiguousUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(utf8).withUnsafeBufferPointer(body)
    }
}
