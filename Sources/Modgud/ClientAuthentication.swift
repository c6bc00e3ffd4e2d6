import Core
import Crypto
import HTTPCodec

/// HTTP Basic client authentication (RFC 6749 §2.3.1): id and secret are
/// form-urlencoded, joined by a colon and base64-encoded. Modgud honours the
/// forwarded address only for Basic (or private_key_jwt), never for a
/// secret posted in the body.
public enum ClientAuthentication {
    public static func basic(id: String, secret: Secret) -> Secret {
        let joined = FormURLEncoded.encodeComponent(id) + ":" + FormURLEncoded.encodeComponent(secret.revealed)
        return Secret("Basic " + Base64.encode(Array(joined.utf8)))
    }
}
