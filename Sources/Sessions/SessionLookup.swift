/// The outcome of reading a cookie-bound record (a session or flow state).
/// Only `.found` carries a value; every other case means "no session" to
/// the browser, and `.tampered` should be logged (without the cookie).
public enum SessionLookup<Value: Sendable>: Sendable {
    /// The request carried no cookie of that name.
    case noCookie
    /// The cookie is not 32 bytes of unpadded base64url: never issued by us.
    case malformedCookie
    /// No record under the derived key: expired (idle), ended, or unknown.
    case notFound
    /// A record was found but it is past its absolute expiry.
    case expired
    /// A record was found but does not open under this cookie's key and
    /// associated data (flipped, truncated, moved or swapped in the store),
    /// or its content does not decode. Never trusted.
    case tampered
    /// The live record.
    case found(Value)

    /// The value when found, else nil.
    public var value: Value? {
        if case .found(let value) = self { return value }
        return nil
    }
}
