import Crypto

/// RFC 6238 time-based one-time passwords with the defaults every
/// authenticator app uses: HMAC-SHA1, 30-second steps, 6 digits.
public enum TOTP {
    /// The time step, in seconds.
    public static let period: Double = 30
    /// Digits per code.
    public static let digits = 6

    /// The code for the step containing `time` (Unix seconds).
    public static func code(secret: [UInt8], time: Double) -> String {
        code(secret: secret, counter: UInt64(max(0, time) / period))
    }

    /// The code for one counter value (RFC 4226 HOTP).
    public static func code(secret: [UInt8], counter: UInt64) -> String {
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        let tag = HMACSHA1.authenticate(key: secret, message: message)
        let offset = Int(tag[tag.count - 1] & 0x0F)
        let binary = UInt32(tag[offset] & 0x7F) << 24 | UInt32(tag[offset + 1]) << 16
            | UInt32(tag[offset + 2]) << 8 | UInt32(tag[offset + 3])
        let text = String(binary % 1_000_000)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// Whether `candidate` (spaces and dashes ignored) matches the current
    /// step or one step either side, as ASP.NET Identity accepts.
    public static func verify(_ candidate: String, secret: [UInt8], time: Double) -> Bool {
        let cleaned = String(candidate.filter { $0 != " " && $0 != "-" })
        guard cleaned.utf8.count == digits, cleaned.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        let step = Int64(max(0, time) / period)
        for delta in [0, -1, 1] where step + Int64(delta) >= 0 {
            let expected = code(secret: secret, counter: UInt64(step + Int64(delta)))
            if constantTimeEquals(Array(expected.utf8), Array(cleaned.utf8)) { return true }
        }
        return false
    }
}
