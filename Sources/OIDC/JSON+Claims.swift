import Core

extension JSON {
    /// A NumericDate claim (seconds since the epoch, RFC 7519 §2) when
    /// present, fractions dropped and held to ±2^53; nil when absent;
    /// throws when it is not a number.
    func numericDate(_ claim: JWTClaim) throws(JWTError) -> Int64? {
        guard let value = self[claim.rawValue] else { return nil }
        guard let seconds = value.doubleValue, seconds.isFinite else { throw .invalidClaim(claim) }
        let bound = Double(1 << 53)
        return Int64(min(max(seconds, -bound), bound).rounded(.down))
    }

    /// A NumericDate claim that must be present.
    func requiredNumericDate(_ claim: JWTClaim) throws(JWTError) -> Int64 {
        guard let seconds = try numericDate(claim) else { throw .invalidClaim(claim) }
        return seconds
    }

    /// A string claim when present; nil when absent; throws for another type
    /// or an empty string.
    func string(_ claim: JWTClaim) throws(JWTError) -> String? {
        guard let value = self[claim.rawValue] else { return nil }
        guard let text = value.stringValue, !text.isEmpty else { throw .invalidClaim(claim) }
        return text
    }

    /// A string claim that must be present.
    func requiredString(_ claim: JWTClaim) throws(JWTError) -> String {
        guard let text = try string(claim) else { throw .invalidClaim(claim) }
        return text
    }
}
