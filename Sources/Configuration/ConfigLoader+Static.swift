import Core
import System

extension ConfigLoader {
    /// BFF_STATIC_ROOT (an existing directory), BFF_STATIC_FALLBACK,
    /// BFF_STATIC_HTML_HEADERS and BFF_STATIC_REVALIDATE_MS; returns how to
    /// apply them.
    static func readStaticSettings(_ reader: inout SettingReader) -> (inout GatewayConfig) -> Void {
        let root = reader.value(.staticRoot) { path -> Result<String, ValueProblem> in
            switch FileStatus.of(path: path)?.kind {
            case .directory?: return .success(path)
            case nil: return .failure(ValueProblem("the directory \(path) does not exist"))
            case .regular?, .other?: return .failure(ValueProblem("\(path) is not a directory"))
            }
        }
        let fallback = reader.value(.staticFallback, parseFallback)
        let headers = reader.value(.staticHTMLHeaders, parseHTMLHeaders)
        let revalidate = reader.integer(.staticRevalidate)
        return { config in
            config.staticRoot = root
            if let fallback { config.staticFallback = fallback == "off" ? nil : fallback }
            if let headers { config.staticHTMLHeaders = headers }
            if let revalidate { config.staticRevalidate = .milliseconds(revalidate) }
        }
    }

    /// `off`, or a file below the root: relative, no empty, `.`-led or
    /// `..` segment, no backslash or NUL (the rules every served path keeps).
    static func parseFallback(_ text: String) -> Result<String, ValueProblem> {
        if text == "off" { return .success(text) }
        let segments = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !text.hasPrefix("/"), !text.utf8.contains(UInt8(ascii: "\\")), !text.utf8.contains(0),
              segments.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else {
            return .failure(ValueProblem("must be `off` or a file's path relative to BFF_STATIC_ROOT, with no hidden, "
                + "empty or `..` segment, like index.html or app/index.html"))
        }
        return .success(text)
    }

    /// A JSON object of field names and values laid over
    /// `HeaderField.staticHTMLDefaults`; an empty value drops the field.
    static func parseHTMLHeaders(_ text: String) -> Result<[HeaderField], ValueProblem> {
        guard let pairs = (try? JSON.parse(text))?.objectValue else {
            return .failure(ValueProblem("must be a JSON object of header names and values"))
        }
        var fields = HeaderField.staticHTMLDefaults
        for (name, value) in pairs {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
                return .failure(ValueProblem("\"\(name)\" is not a header field name"))
            }
            guard !HeaderField.reservedNames.contains(name.lowercased()) else {
                return .failure(ValueProblem("\(name) is set by the static answers themselves"))
            }
            guard let text = value.stringValue, text.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }),
                  text == Lexical.trimmingWhitespace(text[...], newlines: true) else {
                return .failure(ValueProblem("the value of \(name) must be a string without control characters or "
                    + "surrounding blanks"))
            }
            fields.removeAll { $0.name.lowercased() == name.lowercased() }
            if !text.isEmpty { fields.append(HeaderField(name, text)) }
        }
        return .success(fields)
    }

    /// A `tchar` of RFC 9110's field-name grammar.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
