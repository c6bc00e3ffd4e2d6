/// Encodes an argument list as a RESP array of bulk strings, the form
/// `redisAsyncFormattedCommand` takes. Formatting here rather than through
/// `redisAsyncCommandArgv` avoids holding a pointer to every argument at
/// once; hiredis copies the bytes into its output buffer either way.
///
/// The result ends with a NUL byte that is not part of the command (pass
/// `count - 1` as its length): hiredis scans the formatted command with
/// `strchr` to find the command name and (for `SUBSCRIBE`) the channels,
/// and would otherwise read past the end of the buffer.
enum RESPCommand {
    static func encode(_ arguments: [[UInt8]]) -> [UInt8] {
        var size = 17
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
        out.append(0)
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
