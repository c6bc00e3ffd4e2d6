extension String {
    /// Calls `body` with the string's UTF-8 bytes, contiguous: in place for
    /// a native string (every string on Linux), else from a copy.
    @inlinable
    public func withContiguousUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(utf8).withUnsafeBufferPointer(body)
    }
}
