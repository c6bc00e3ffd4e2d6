import Crypto

/// Users, codes, links, passkeys, ceremonies and tokens: everything the
/// simulator knows about identities, kept in memory behind one lock (see
/// `SimulatorState.identity`) so that one operation — redeem a code,
/// create the user, mint the tokens — is atomic.
struct IdentityStore: Sendable {
    var users: [String: UserRecord] = [:]
    var emailIndex: [String: String] = [:]
    var codes: [String: EmailCode] = [:]
    var pending: [String: PendingRegistration] = [:]
    var magicLinks: [String: MagicLinkRecord] = [:]
    var mfa: [String: MFAChallenge] = [:]
    var ceremonies: [String: PasskeyCeremony] = [:]
    var passkeys: [String: PasskeyRecord] = [:]
    var families: [String: TokenFamily] = [:]
    var accessTokens: [String: AccessTokenRecord] = [:]
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    var authorizationCodes: [String: AuthorizationCodeRecord] = [:]
    var browserSessions: [String: BrowserSession] = [:]
    var passwordChallenges: [String: PasswordChallenge] = [:]
    var pushedRequests: [String: PushedRequest] = [:]
    var deviceAuthorizations = DeviceAuthorizations()
    private var operationsSinceSweep = 0

    /// How e-mail addresses are compared: trimmed, lower-cased.
    static func normalize(_ email: String) -> String { email.trimmingSpaces.lowercased() }

    func user(email: String) -> UserRecord? {
        emailIndex[Self.normalize(email)].flatMap { users[$0] }
    }

    // MARK: Users

    /// Creates or replaces the user of a seed (the id is kept when the
    /// e-mail address is already known).
    @discardableResult
    mutating func upsert(_ seed: UserSeed, now: Double) -> UserRecord {
        let key = Self.normalize(seed.email)
        let existing = emailIndex[key].flatMap { users[$0] }
        let record = UserRecord(
            id: existing?.id ?? seed.id ?? Identifiers.guid(), email: seed.email.trimmingSpaces,
            firstName: seed.firstName, lastName: seed.lastName, emailConfirmed: seed.emailConfirmed,
            hasPassword: seed.hasPassword, password: seed.password, disabled: existing?.disabled ?? false, totpSecret: seed.totpSecret.flatMap(Base32.decode),
            securityStamp: existing?.securityStamp ?? Identifiers.token(), createdAt: existing?.createdAt ?? now)
        users[record.id] = record
        emailIndex[key] = record.id
        return record
    }

    mutating func createUser(email: String, firstName: String?, lastName: String?, now: Double) -> UserRecord {
        var seed = UserSeed(email: email, firstName: firstName, lastName: lastName)
        seed.emailConfirmed = true
        return upsert(seed, now: now)
    }

    // MARK: E-mailed codes

    /// A fresh sign-in code for the user (replacing any earlier one).
    mutating func issueCode(forUser userId: String, settings: TokenSettings, now: Double) -> String {
        let code = Identifiers.numericCode()
        codes[userId] = EmailCode(code: code, expiresAt: now + Double(settings.codeLifetimeSeconds),
                                  attemptsLeft: settings.codeAttempts)
        noteOperation(now: now)
        return code
    }

    /// A pending registration with its code; the latest request for an
    /// address replaces an earlier one.
    mutating func issueRegistration(email: String, firstName: String?, lastName: String?, settings: TokenSettings,
                                    now: Double) -> String {
        let code = Identifiers.numericCode()
        pending[Self.normalize(email)] = PendingRegistration(
            email: email.trimmingSpaces, firstName: firstName, lastName: lastName,
            code: EmailCode(code: code, expiresAt: now + Double(settings.codeLifetimeSeconds),
                            attemptsLeft: settings.codeAttempts))
        noteOperation(now: now)
        return code
    }

    /// Proves `code` for `email`: the user (created now for a pending
    /// registration), or nil. Every failure spends an attempt; a used,
    /// expired or exhausted code is gone.
    mutating func redeemCode(email: String, code: String, now: Double) -> UserRecord? {
        let key = Self.normalize(email)
        if let userId = emailIndex[key], let user = users[userId] {
            guard var record = codes[userId] else { return nil }
            if Self.check(&record, code, now) {
                codes[userId] = nil
                if !user.emailConfirmed { users[userId]?.emailConfirmed = true }
                return users[userId]
            }
            codes[userId] = record.attemptsLeft > 0 && record.expiresAt > now ? record : nil
            return nil
        }
        guard var registration = pending[key] else { return nil }
        if Self.check(&registration.code, code, now) {
            pending[key] = nil
            return createUser(email: registration.email, firstName: registration.firstName,
                              lastName: registration.lastName, now: now)
        }
        pending[key] = registration.code.attemptsLeft > 0 && registration.code.expiresAt > now ? registration : nil
        return nil
    }

    private static func check(_ record: inout EmailCode, _ candidate: String, _ now: Double) -> Bool {
        guard record.expiresAt > now, record.attemptsLeft > 0 else { return false }
        if constantTimeEquals(Array(record.code.utf8), Array(candidate.trimmingSpaces.utf8)) { return true }
        record.attemptsLeft -= 1
        return false
    }

    // MARK: Magic links

    mutating func issueMagicLink(forUser userId: String, settings: TokenSettings, now: Double) -> String {
        let token = Identifiers.token()
        magicLinks[token] = MagicLinkRecord(userId: userId, expiresAt: now + Double(settings.magicLinkLifetimeSeconds))
        noteOperation(now: now)
        return token
    }

    /// Spends the link (single use) and returns its user, or nil.
    mutating func redeemMagicLink(userId: String, token: String, now: Double) -> UserRecord? {
        guard let record = magicLinks[token], record.userId == userId else { return nil }
        magicLinks[token] = nil
        guard record.expiresAt > now, var user = users[userId] else { return nil }
        if !user.emailConfirmed {
            user.emailConfirmed = true
            users[userId] = user
        }
        return user
    }

    // MARK: Housekeeping

    /// Every few thousand writes, drops what has expired, so a long load
    /// run stays within bounded memory.
    mutating func noteOperation(now: Double) {
        operationsSinceSweep += 1
        guard operationsSinceSweep >= 4096 else { return }
        operationsSinceSweep = 0
        codes = codes.filter { $0.value.expiresAt > now }
        pending = pending.filter { $0.value.code.expiresAt > now }
        magicLinks = magicLinks.filter { $0.value.expiresAt > now }
        mfa = mfa.filter { $0.value.expiresAt > now }
        ceremonies = ceremonies.filter { $0.value.expiresAt > now }
        authorizationCodes = authorizationCodes.filter { $0.value.expiresAt > now }
        passwordChallenges = passwordChallenges.filter { $0.value.expiresAt > now }
        pushedRequests = pushedRequests.filter { $0.value.expiresAt > now }
        deviceAuthorizations.sweep(now: now)
        let expiredAccess = accessTokens.filter { $0.value.expiresAt <= now }
        for (token, record) in expiredAccess {
            accessTokens[token] = nil
            families[record.familyId]?.accessTokens.removeAll { $0 == token }
        }
        let expiredRefresh = refreshTokens.filter { $0.value.expiresAt <= now }
        for (token, record) in expiredRefresh {
            refreshTokens[token] = nil
            families[record.familyId]?.refreshTokens.removeAll { $0 == token }
        }
        families = families.filter { !$0.value.accessTokens.isEmpty || !$0.value.refreshTokens.isEmpty }
    }
}
