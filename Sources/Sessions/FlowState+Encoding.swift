import Core

// The plaintext of a sealed flow record, format 1:
// format (1) = 1 · expiresAt (8) · grant (lp) · ceremonyID (flag, lp?) ·
// mfaToken (flag, lp?) · value count (LEB128) · per value, sorted: name (lp) · value (lp).
extension FlowState {
    static let format: UInt8 = 1

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 128)
        writer.byte(Self.format)
        writer.uint64(expiresAt)
        writer.string(grant)
        writer.optionalString(ceremonyID?.revealed)
        writer.optionalString(mfaToken?.revealed)
        writer.varint(values.count)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            writer.string(value.revealed)
        }
        return writer.bytes
    }

    /// Decodes format 1, or returns nil for anything else.
    init?(decoding bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard reader.byte() == Self.format, let expiresAt = reader.uint64(), let grant = reader.string(),
              let ceremonyID = reader.optionalString(), let mfaToken = reader.optionalString(),
              let count = reader.varint(), count <= 64
        else { return nil }
        var values: [String: Secret] = [:]
        for _ in 0..<count {
            guard let name = reader.string(), let value = reader.string(), values[name] == nil else { return nil }
            values[name] = Secret(value)
        }
        guard reader.isAtEnd else { return nil }
        self.init(grant: grant, ceremonyID: ceremonyID.map(Secret.init), mfaToken: mfaToken.map(Secret.init),
                  values: values)
        self.expiresAt = expiresAt
    }
}
