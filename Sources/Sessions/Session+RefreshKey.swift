import Crypto

extension Session {
    /// The key that authenticates what gateway instances tell each other
    /// about this session's refresh through the store (the published
    /// outcome and the failure kept beside the record): HKDF-SHA256 of the
    /// session's sealing key, info `modgud-bff/session/refresh-outcome/v1`.
    /// Every instance serving the session derives it from the cookie; the
    /// store never holds it, nor anything it can be derived from.
    public func refreshOutcomeKey() throws(CryptoError) -> MACKey {
        try MACKey(derivedFrom: handle.sealKey, info: Self.refreshOutcomeInfo)
    }

    private static let refreshOutcomeInfo = Array("modgud-bff/session/refresh-outcome/v1".utf8)
}
