/// Redis Cluster's key slots: CRC16 (XMODEM) of the key, or of its hash tag
/// (the part between the first `{` and the next `}`, when not empty),
/// modulo 16384.
enum ClusterSlot {
    static let count = 16384

    static func of(_ key: [UInt8]) -> Int {
        key.withUnsafeBufferPointer { bytes in
            var part = bytes[...]
            if let open = bytes.firstIndex(of: UInt8(ascii: "{")),
               let close = bytes[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
            {
                part = bytes[(open + 1)..<close]
            }
            return Int(crc16(part) & 0x3FFF)
        }
    }

    /// The slot a command is routed by: that of its first key; nil for a
    /// command without keys (any node answers it).
    static func of(command arguments: [[UInt8]]) -> Int? {
        guard let name = arguments.first, let key = keyIndex(name, arguments) else { return nil }
        return arguments.indices.contains(key) ? of(arguments[key]) : nil
    }

    /// Where the first key is: after the key count for `EVAL`/`EVALSHA`
    /// (nil when it is 0), none for the commands below, else the first argument.
    private static func keyIndex(_ name: [UInt8], _ arguments: [[UInt8]]) -> Int? {
        // The gateway's own commands are upper case already: no copy for them.
        let isLower: (UInt8) -> Bool = { $0 >= 0x61 && $0 <= 0x7A }
        let upper = name.contains(where: isLower) ? name.map { isLower($0) ? $0 - 0x20 : $0 } : name
        if upper == Array("EVALSHA".utf8) || upper == Array("EVAL".utf8) {
            guard arguments.count > 3, arguments[2] != [0x30] else { return nil }
            return 3
        }
        return keyless.contains(upper) ? nil : 1
    }

    private static let keyless: Set<[UInt8]> = Set([
        "PING", "ECHO", "SCRIPT", "PUBLISH", "WAIT", "CLIENT", "INFO", "CLUSTER", "ROLE", "FLUSHALL", "FLUSHDB", "DBSIZE",
        "SUBSCRIBE", "UNSUBSCRIBE", "CONFIG", "DEBUG", "TIME", "KEYS", "SCAN", "ASKING", "READONLY", "AUTH", "SELECT", "HELLO",
    ].map { Array($0.utf8) })

    /// CRC16-CCITT (XMODEM: polynomial 0x1021, initial 0), the cluster's hash.
    static func crc16(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes { crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)] }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}

/// A cluster's answer that a key lives elsewhere.
enum ClusterRedirect: Equatable {
    /// The slot moved for good: update the map and go there.
    case moved(slot: Int, to: RedisAddress)
    /// The slot is migrating and this key already left: ask `to` once,
    /// after `ASKING`.
    case ask(slot: Int, to: RedisAddress)

    /// Reads `MOVED 3999 127.0.0.1:6381` or `ASK …` from an error text (which
    /// may start with the command's name and a colon).
    init?(_ text: String) {
        let message = text.firstRange(of: ": ").map { text[$0.upperBound...] } ?? text[...]
        let parts = message.split(separator: " ")
        guard parts.count == 3, let slot = Int(parts[1]), (0..<ClusterSlot.count).contains(slot),
              let colon = parts[2].lastIndex(of: ":"), let port = Int(parts[2][parts[2].index(after: colon)...])
        else { return nil }
        var host = String(parts[2][..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let address = RedisAddress(host: host, port: port)
        switch parts[0] {
        case "MOVED": self = .moved(slot: slot, to: address)
        case "ASK": self = .ask(slot: slot, to: address)
        default: return nil
        }
    }
}
