/// A small JSON writer for the gateway's own response bodies: keys keep
/// their order and strings are escaped per RFC 8259.
public indirect enum JSONBody: Sendable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONBody])
    case object([(String, JSONBody)])

    public static func == (lhs: JSONBody, rhs: JSONBody) -> Bool { lhs.bytes == rhs.bytes }

    /// The serialised bytes of an object literal.
    public static func encode(_ pairs: KeyValuePairs<String, JSONBody>) -> [UInt8] {
        JSONBody.object(pairs.map { ($0.key, $0.value) }).bytes
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .string(let s): Self.writeString(s, to: &out)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs): Self.writeObject(pairs, to: &out)
        }
    }

    private static func writeObject(_ pairs: [(String, JSONBody)], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, pair) in pairs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            writeString(pair.0, to: &out)
            out.append(UInt8(ascii: ":"))
            pair.1.write(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
