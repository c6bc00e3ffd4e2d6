import Core

/// The plaintext of a sealed session record, format 3:
///
/// ```
/// format (1) = 1
/// authenticatedAt (8) · absoluteExpiresAt (8)            Unix ms, big-endian
/// sub (lp) · claims (lp) · sid (flag, lp?)               lp = LEB128 length + bytes
/// accessToken (lp) · accessTokenExpiresAt (8, 0 = unknown)
/// refreshToken (flag, lp?) · refreshTokenExpiresAt (8, 0 = unknown)
/// idToken (flag, lp?) · scope (lp)
/// resource count (LEB128) · per resource, sorted: name (lp) · token (lp) · expiresAt (8)
/// refreshOutcomeUnknownSince (8, 0 = none)               formats 2 and 3
/// method (lp, empty = not recorded)                      format 3 only
/// ```
///
/// Formats 1 and 2 are read as format 3 without the fields they lack (no
/// unknown refresh, no method). Trailing bytes, an unknown format, an
/// unknown method or a malformed field refuse the whole record.
struct SessionRecord: Sendable {
    static let format: UInt8 = 3

    var data: SessionData
    var authenticatedAt: UInt64
    var absoluteExpiresAt: UInt64

    func encoded() -> [UInt8] {
        let tokens = data.tokens
        var writer = ByteWriter(capacity: 96 + data.subject.utf8.count + data.claims.count
                                + tokens.accessToken.revealed.utf8.count
                                + (tokens.refreshToken?.revealed.utf8.count ?? 0)
                                + (tokens.idToken?.revealed.utf8.count ?? 0) + tokens.scope.utf8.count)
        writer.byte(Self.format)
        writer.uint64(authenticatedAt)
        writer.uint64(absoluteExpiresAt)
        writer.string(data.subject)
        writer.lengthPrefixed(data.claims)
        writer.optionalString(data.sid)
        writer.string(tokens.accessToken.revealed)
        writer.optionalUInt64(tokens.accessTokenExpiresAt)
        writer.optionalString(tokens.refreshToken?.revealed)
        writer.optionalUInt64(tokens.refreshTokenExpiresAt)
        writer.optionalString(tokens.idToken?.revealed)
        writer.string(tokens.scope)
        writer.varint(tokens.resources.count)
        for (resource, token) in tokens.resources.sorted(by: { $0.key < $1.key }) {
            writer.string(resource)
            writer.string(token.accessToken.revealed)
            writer.optionalUInt64(token.expiresAt)
        }
        writer.optionalUInt64(tokens.refreshOutcomeUnknownSince)
        writer.string(data.method?.rawValue ?? "")
        return writer.bytes
    }

    init(data: SessionData, authenticatedAt: UInt64, absoluteExpiresAt: UInt64) {
        self.data = data
        self.authenticatedAt = authenticatedAt
        self.absoluteExpiresAt = absoluteExpiresAt
    }

    /// Decodes formats 1 to 3, or returns nil for anything else.
    init?(decoding bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let format = reader.byte(), (1...Self.format).contains(format),
              let authenticatedAt = reader.uint64(), let absoluteExpiresAt = reader.uint64(),
              let subject = reader.string(), let claims = reader.lengthPrefixed(), let sid = reader.optionalString(),
              let accessToken = reader.string(), let accessExpiry = reader.optionalUInt64(),
              let refreshToken = reader.optionalString(), let refreshExpiry = reader.optionalUInt64(),
              let idToken = reader.optionalString(), let scope = reader.string(),
              let resourceCount = reader.varint(), resourceCount <= 256
        else { return nil }
        var resources: [String: SessionTokens.ResourceToken] = [:]
        for _ in 0..<resourceCount {
            guard let name = reader.string(), let token = reader.string(), let expiry = reader.optionalUInt64(),
                  resources[name] == nil
            else { return nil }
            resources[name] = .init(accessToken: Secret(token), expiresAt: expiry)
        }
        var unknownSince: UInt64?
        if format >= 2 {
            guard let since = reader.optionalUInt64() else { return nil }
            unknownSince = since
        }
        var method: SignInMethod?
        if format >= 3 {
            guard let name = reader.string() else { return nil }
            if !name.isEmpty {
                guard let known = SignInMethod(rawValue: name) else { return nil }
                method = known
            }
        }
        guard reader.isAtEnd else { return nil }
        let tokens = SessionTokens(
            accessToken: Secret(accessToken), accessTokenExpiresAt: accessExpiry,
            refreshToken: refreshToken.map(Secret.init), refreshTokenExpiresAt: refreshExpiry,
            idToken: idToken.map(Secret.init), scope: scope, resources: resources,
            refreshOutcomeUnknownSince: unknownSince)
        self.data = SessionData(subject: subject, claims: claims, sid: sid, method: method, tokens: tokens)
        self.authenticatedAt = authenticatedAt
        self.absoluteExpiresAt = absoluteExpiresAt
    }
}
