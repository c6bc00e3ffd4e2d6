/// One entry of a user's session list (`GET /bff/sessions`): what the
/// gateway may show about a session without opening its record. Read from
/// the session's card, sealed with the directory key (Docs/sessions.md,
/// "Session cards").
public struct SessionCard: Sendable, Hashable {
    /// The public handle: random, unrelated to the cookie and to any store
    /// key (base64url of 16 random bytes).
    public var handle: String
    /// Whether this is the session that asked.
    public var current: Bool
    /// When the session started (Unix ms).
    public var createdAt: UInt64
    /// When the session was last renewed on use (Unix ms; the idle
    /// renewal's granularity, see `SessionConfiguration.touchInterval`).
    public var lastSeenAt: UInt64
    /// How the user signed in, when known.
    public var method: SignInMethod?
    /// A short line naming the browser and its system ("Chrome on macOS").
    public var device: String
    /// The browser's address at sign-in.
    public var address: String

    /// A list entry.
    public init(handle: String, current: Bool, createdAt: UInt64, lastSeenAt: UInt64, method: SignInMethod?,
                device: String, address: String) {
        self.handle = handle
        self.current = current
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.method = method
        self.device = device
        self.address = address
    }
}

/// The plaintext of a card: the list entry's facts plus what lets the
/// gateway reach the session itself (its store key and sealing key) and
/// its `sid`. Format 1, compact binary like the session record.
struct CardContent: Sendable {
    static let format: UInt8 = 1
    /// The longest `device` and `address` a card keeps, in bytes.
    static let maximumFactBytes = 128

    var handle: String
    var storeKey: String
    var sealKey: [UInt8]
    var createdAt: UInt64
    var lastSeenAt: UInt64
    var method: SignInMethod?
    var device: String
    var address: String
    var sid: String?

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 160 + device.utf8.count + address.utf8.count)
        writer.byte(Self.format)
        writer.string(handle)
        writer.string(storeKey)
        writer.lengthPrefixed(sealKey)
        writer.uint64(createdAt)
        writer.uint64(lastSeenAt)
        writer.string(method?.rawValue ?? "")
        writer.string(device)
        writer.string(address)
        writer.optionalString(sid)
        return writer.bytes
    }

    init(handle: String, storeKey: String, sealKey: [UInt8], createdAt: UInt64, lastSeenAt: UInt64,
         method: SignInMethod?, device: String, address: String, sid: String?) {
        self.handle = handle
        self.storeKey = storeKey
        self.sealKey = sealKey
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.method = method
        self.device = Self.cut(device)
        self.address = Self.cut(address)
        self.sid = sid
    }

    /// Nil for anything but a whole, well-formed format-1 card.
    init?(decoding bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard reader.byte() == Self.format, let handle = reader.string(), let storeKey = reader.string(),
              let sealKey = reader.lengthPrefixed(), let createdAt = reader.uint64(), let lastSeenAt = reader.uint64(),
              let methodName = reader.string(), let device = reader.string(), let address = reader.string(),
              let sid = reader.optionalString(), reader.isAtEnd
        else { return nil }
        let method = SignInMethod(rawValue: methodName)
        guard method != nil || methodName.isEmpty else { return nil }
        self.init(handle: handle, storeKey: storeKey, sealKey: sealKey, createdAt: createdAt, lastSeenAt: lastSeenAt,
                  method: method, device: device, address: address, sid: sid)
    }

    /// The list entry, marked current when it is `currentStoreKey`'s.
    func card(currentStoreKey: String) -> SessionCard {
        SessionCard(handle: handle, current: storeKey == currentStoreKey, createdAt: createdAt, lastSeenAt: lastSeenAt,
                    method: method, device: device, address: address)
    }

    /// `text` cut to at most `maximumFactBytes` bytes on a character boundary.
    static func cut(_ text: String) -> String {
        guard text.utf8.count > maximumFactBytes else { return text }
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= maximumFactBytes else { break }
            result.append(character)
        }
        return result
    }
}
