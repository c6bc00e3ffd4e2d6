/// The same-origin-path rule for where a browser is sent after a sign-in
/// (`returnUrl`) and for the configured sign-in error path: a value is
/// used only when no browser could read it as another origin.
///
/// Accepted: at most `maximumBytes` bytes of visible ASCII (no control
/// character, no whitespace, nothing past 0x7E) starting with exactly one
/// `/`, with no `//` and no `\` anywhere (browsers read `\` as `/`, and
/// `//host` or `/\host` as another host), and well-formed percent
/// escapes whose decoding, repeated while it changes anything (up to four
/// layers), breaks none of these rules either (`/%2F%2Fevil`, `/%5Cevil`,
/// `/%09`, `/%252F%252Fevil`).
/// A path that starts with `/` names no scheme.
public enum ReturnPath {
    /// The longest value accepted, in bytes.
    public static let maximumBytes = 2048

    /// Where a browser goes when the value is refused.
    public static let fallback = "/"

    /// `value` when it is a same-origin path, else `/`.
    public static func sanitized(_ value: String?) -> String {
        guard let value, isSameOriginPath(value) else { return fallback }
        return value
    }

    /// Whether `value` passes the rule.
    public static func isSameOriginPath(_ value: String) -> Bool {
        var bytes = Array(value.utf8)
        guard bytes.count <= maximumBytes else { return false }
        // Each round decodes one layer of escapes; a layer that changes
        // nothing ends it. A value that keeps decoding past a few layers
        // is not a path anyone means.
        for round in 0..<4 {
            guard passesShape(bytes) else { return false }
            guard let decoded = percentDecoded(bytes, strict: round == 0) else { return false }
            if decoded == bytes { return true }
            bytes = decoded
        }
        return false
    }

    /// The rule on one layer: one leading `/`, visible ASCII only, no `//`, no `\`.
    private static func passesShape(_ bytes: [UInt8]) -> Bool {
        guard bytes.first == UInt8(ascii: "/") else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return false }
            if byte == UInt8(ascii: "/"), previous == UInt8(ascii: "/") { return false }
            previous = byte
        }
        return true
    }

    /// One layer of `%XX` escapes decoded. A malformed escape makes it nil
    /// when `strict` (the value as given), and stays a literal `%` in a
    /// layer that decoding produced (`/100%25` is `/100%`).
    private static func percentDecoded(_ bytes: [UInt8], strict: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.count, let high = PercentDecoding.hexValue(bytes[index + 1]),
                  let low = PercentDecoding.hexValue(bytes[index + 2])
            else {
                if strict { return nil }
                output.append(byte)
                index += 1
                continue
            }
            output.append(high << 4 | low)
            index += 3
        }
        return output
    }
}
