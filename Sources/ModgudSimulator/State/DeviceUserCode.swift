/// The user code of a device authorization (RFC 8628 §6.1): eight letters
/// from an alphabet without vowels or look-alikes, shown as `WDJB-MJHT`,
/// typed without regard to case, dashes or spaces.
enum DeviceUserCode {
    /// Twenty consonants: no vowels (no words), no look-alike letters.
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    static let length = 8

    /// A new code in its display form, uniformly random (about 34 bits).
    static func make() -> String {
        var letters: [Character] = []
        // Rejection sampling: bytes ≥ 240 would make the first letters likelier.
        let limit = UInt8(256 - 256 % alphabet.count)
        while letters.count < length {
            for byte in Identifiers.randomBytes(length) where byte < limit && letters.count < length {
                letters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(letters[..<(length / 2)]) + "-" + String(letters[(length / 2)...])
    }

    /// The canonical form of a typed code (upper case, no dashes or
    /// spaces), or nil when it cannot be a user code at all.
    static func normalize(_ typed: String) -> String? {
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " && $0 != "\t" }
        guard letters.count == length, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }
}
