/// Reads an environment file as systemd reads one named by `EnvironmentFile=`
/// (systemd.exec(5)), so a test can compare that reading with a shell's
/// `set -a; . FILE; set +a`.
///
/// The rules, line by line:
/// - blanks before a name are skipped; a line that then starts with `#` or
///   `;` is a comment, and a line without `=` is ignored;
/// - the name is everything before `=`, trailing blanks dropped; a name that
///   is not `[A-Za-z_][A-Za-z0-9_]*` is dropped with its value;
/// - after `=`, blanks are skipped, then the value is read in pieces that
///   join up: `'…'` verbatim (it may span lines); `"…"` where a backslash
///   before `"`, `\`, `` ` `` or `$` keeps that character alone, a
///   backslash before a newline drops both, and any other backslash stays;
///   unquoted text, where a backslash keeps the next character alone (a
///   newline: dropped), quotes are ordinary characters, blanks inside are
///   kept and trailing blanks dropped. Blanks after a closing quote are
///   skipped. A newline outside quotes ends the value;
/// - `$` is never expanded; a later assignment of a name wins.
public enum EnvironmentFile {
    /// Every assignment systemd takes from `text`, in order.
    public static func systemdAssignments(_ text: String) -> [(name: String, value: String)] {
        var reader = Reader()
        for scalar in text.unicodeScalars { reader.read(scalar) }
        reader.finish()
        return reader.assignments.filter { isValidName($0.name) }
    }

    /// The variables systemd sets from `text`.
    public static func systemd(_ text: String) -> [String: String] {
        var variables: [String: String] = [:]
        for (name, value) in systemdAssignments(text) { variables[name] = value }
        return variables
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isValidName(_ name: String) -> Bool {
        func isLetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" }
        guard let first = name.unicodeScalars.first, isLetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }

    private struct Reader {
        enum State { case beforeName, name, beforeValue, unquoted, unquotedEscape, single, double, doubleEscape, comment }

        var state = State.beforeName
        var name = "", value = ""
        /// Where (in UTF-8 bytes) the trailing blanks of unquoted text begin, if it ends in blanks.
        var blanksFrom: Int?
        var assignments: [(name: String, value: String)] = []

        static func isBlank(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || isNewline(c) }
        static func isNewline(_ c: Unicode.Scalar) -> Bool { c == "\n" || c == "\r" }

        mutating func read(_ c: Unicode.Scalar) {
            switch state {
            case .beforeName:
                if c == "#" || c == ";" { state = .comment } else if !Self.isBlank(c) { name = String(c); state = .name }
            case .name:
                if Self.isNewline(c) { state = .beforeName } else if c == "=" { state = .beforeValue } else { name.unicodeScalars.append(c) }
            case .beforeValue:
                if Self.isNewline(c) { end() } else if c == "'" { state = .single } else if c == "\"" { state = .double }
                else if c == "\\" { state = .unquotedEscape } else if !Self.isBlank(c) { append(c); state = .unquoted }
            case .unquoted:
                if Self.isNewline(c) { end() } else if c == "\\" { blanksFrom = nil; state = .unquotedEscape } else {
                    if c == " " || c == "\t" { blanksFrom = blanksFrom ?? value.utf8.count } else { blanksFrom = nil }
                    value.unicodeScalars.append(c)
                }
            case .unquotedEscape:
                if !Self.isNewline(c) { value.unicodeScalars.append(c) }
                state = .unquoted
            case .single:
                if c == "'" { state = .beforeValue } else { value.unicodeScalars.append(c) }
            case .double:
                if c == "\"" { state = .beforeValue } else if c == "\\" { state = .doubleEscape } else { value.unicodeScalars.append(c) }
            case .doubleEscape:
                if "\"\\`$".unicodeScalars.contains(c) { value.unicodeScalars.append(c) }
                else if c != "\n" { value += "\\"; value.unicodeScalars.append(c) }
                state = .double
            case .comment:
                if Self.isNewline(c) { state = .beforeName }
            }
        }

        mutating func append(_ c: Unicode.Scalar) {
            blanksFrom = nil
            value.unicodeScalars.append(c)
        }

        /// The end of the file ends a value being read as a newline would.
        mutating func finish() {
            if [.beforeValue, .unquoted, .unquotedEscape, .single, .double, .doubleEscape].contains(state) { end() }
        }

        mutating func end() {
            if state == .unquoted, let blanksFrom { value = String(decoding: value.utf8.prefix(blanksFrom), as: UTF8.self) }
            var trimmed = Substring(name)
            while let last = trimmed.unicodeScalars.last, Self.isBlank(last) { trimmed = trimmed.dropLast() }
            assignments.append((String(trimmed), value))
            name = ""
            value = ""
            blanksFrom = nil
            state = .beforeName
        }
    }
}
