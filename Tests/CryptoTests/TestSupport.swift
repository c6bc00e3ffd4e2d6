/// Bytes from a hex string; whitespace is ignored. Traps on bad hex, which
/// only a broken test vector can contain.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") })
    precondition(digits.count % 2 == 0, "odd hex length")
    return stride(from: 0, to: digits.count, by: 2).map { i in
        UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16)!
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hex, for readable expectation failures.
    var hex: String {
        map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }

    /// A copy with one bit of byte `index` flipped.
    func flippingBit(at index: Int, bit: Int = 0) -> [UInt8] {
        var copy = self
        copy[index] ^= 1 << UInt8(bit)
        return copy
    }
}
