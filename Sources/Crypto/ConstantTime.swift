import COpenSSL

/// Compares two byte sequences in time that depends only on their length
/// (`CRYPTO_memcmp`), for MAC tags, CSRF tokens and other secrets.
///
/// Sequences of different lengths are unequal; the lengths themselves are
/// not treated as secret.
@inlinable
public func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.withInputBytes { left in
        rhs.withInputBytes { right in _constantTimeEquals(left, right) }
    }
}

/// The non-generic core of `constantTimeEquals`; both buffers have the same count.
@usableFromInline
func _constantTimeEquals(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
    left.count == 0 || CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
}
