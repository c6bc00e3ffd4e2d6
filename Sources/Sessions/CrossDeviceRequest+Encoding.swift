import Core

// The plaintexts of the sealed cross-device records, format 1:
// request: format (1) = 1 · deviceCode (lp) · intervalSeconds (8) · nextPollAt (8) · expiresAt (8);
// context: format (1) = 1 · startedAt (8) · expiresAt (8) · device (lp) · address (lp).
extension CrossDeviceRequest {
    static let format: UInt8 = 1

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 96)
        writer.byte(Self.format)
        writer.string(deviceCode.revealed)
        writer.uint64(UInt64(intervalSeconds))
        writer.uint64(nextPollAt)
        writer.uint64(expiresAt)
        return writer.bytes
    }

    /// Decodes format 1, or returns nil for anything else.
    init?(decoding bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard reader.byte() == Self.format, let code = reader.string(), let interval = reader.uint64(),
              interval <= 86_400, let next = reader.uint64(), let expires = reader.uint64(), reader.isAtEnd
        else { return nil }
        self.init(deviceCode: Secret(code), intervalSeconds: Int(interval), nextPollAt: next, expiresAt: expires)
    }
}

extension CrossDeviceContext {
    static let format: UInt8 = 1

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 96)
        writer.byte(Self.format)
        writer.uint64(startedAt)
        writer.uint64(expiresAt)
        writer.string(device)
        writer.string(address)
        return writer.bytes
    }

    /// Decodes format 1, or returns nil for anything else.
    init?(decoding bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard reader.byte() == Self.format, let started = reader.uint64(), let expires = reader.uint64(),
              let device = reader.string(), let address = reader.string(), reader.isAtEnd
        else { return nil }
        self.init(startedAt: started, expiresAt: expires, device: device, address: address)
    }
}
