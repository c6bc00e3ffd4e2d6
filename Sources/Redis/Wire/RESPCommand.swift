/// Encodes an argument list as a RESP array of bulk strings, the request
/// form every Redis server reads (the bytes hiredis's
/// `redisFormatCommandArgv` makes; see Docs/decisions/0008).
enum RESPCommand {
    static func encode(_ arguments: [[UInt8]]) -> [UInt8] {
        var size = 16
        for argument in arguments { size += argument.count + 16 }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        out.append(UInt8(ascii: "*"))
        appendDecimal(arguments.count, to: &out)
        for argument in arguments {
            out.append(UInt8(ascii: "$"))
            appendDecimal(argument.count, to: &out)
            out.append(contentsOf: argument)
            out.append(0x0D)
            out.append(0x0A)
        }
        return out
    }

    /// Appends `value` and CRLF.
    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
        } else {
            out.append(contentsOf: String(value).utf8)
        }
        out.append(0x0D)
        out.append(0x0A)
    }
}
