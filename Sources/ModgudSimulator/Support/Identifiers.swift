import Crypto

/// Random values the simulator hands out.
enum Identifiers {
    /// An opaque token: 32 random bytes, base64url (256 bits).
    static func token() -> String {
        Base64URL.encode(randomBytes(32))
    }

    /// A random (version 4) GUID in its usual lower-case text form.
    static func guid() -> String {
        var bytes = randomBytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte -> String in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }

    /// A decimal code of `digits` digits, uniformly distributed.
    static func numericCode(digits: Int = 6) -> String {
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let limit = UInt32.max - UInt32.max % modulus
        while true {
            let bytes = randomBytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard value < limit else { continue }
            let text = String(value % modulus)
            return String(repeating: "0", count: digits - text.count) + text
        }
    }

    /// A uniformly random integer in `range` (for jitter; not secret).
    static func jitter(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range)
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        do {
            return try SecureRandom.bytes(count: count)
        } catch {
            // OpenSSL's CSPRNG failing means the process cannot hand out
            // secrets at all; refusing to continue is the only safe answer.
            fatalError("SecureRandom failed: \(error)")
        }
    }
}
