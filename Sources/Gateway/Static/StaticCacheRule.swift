/// Which `Cache-Control` a static answer carries (Docs/static-files.md).
enum StaticCacheRule {
    /// HTML is revalidated on every use: it names the other files, and a
    /// new release must reach the browser at once.
    static let html = "no-cache"
    /// A name that carries a content hash never changes its content.
    static let hashed = "public, max-age=31536000, immutable"
    /// Anything else may be reused for five minutes, then revalidated.
    static let other = "public, max-age=300"

    /// The field for a file named `name` of type `type`.
    static func cacheControl(name: Substring, type: String) -> String {
        StaticContentType.isHTML(type) ? html : carriesHash(name) ? hashed : other
    }

    /// Whether `name` carries a content hash: the part before its last
    /// extension ends in `.` or `-` and then at least 8 characters of
    /// `A–Z a–z 0–9 _`, among them a digit and a letter
    /// (`main.3f9a0c1d.js`, `index-B4x9Qz1k.css`). A word such as
    /// `settings` or a date such as `20260101` is no hash.
    static func carriesHash(_ name: Substring) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        let stem = name[..<dot]
        guard let mark = stem.lastIndex(where: { $0 == "." || $0 == "-" }) else { return false }
        let hash = stem[stem.index(after: mark)...].utf8
        guard hash.count >= 8, mark != stem.startIndex else { return false }
        var (digit, letter) = (false, false)
        for byte in hash {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): letter = true
            case UInt8(ascii: "_"): break
            default: return false
            }
        }
        return digit && letter
    }
}
