import Core
import Crypto
import HTTP
import Sessions

extension AccountEndpoints {
    /// The answer to `POST /bff/logout` of a session that signed in through
    /// `/bff/login` and holds an id_token, once it has ended here and its
    /// refresh token is revoked: `200 {"endSessionUrl"}`, Modgud's
    /// end-session endpoint with `id_token_hint` (the one token that may
    /// appear in a URL), `post_logout_redirect_uri` and a random `state`,
    /// so the browser can end its sign-in at Modgud too. Nil for any other
    /// session (the caller answers 204).
    func endSessionAnswer(_ session: Session, expiredCookie: String) -> HTTPResponse? {
        guard session.data.method == .code, let idToken = session.data.tokens.idToken, let postLogoutRedirect,
              let state = try? SecureRandom.token(byteCount: 16) else { return nil }
        let url = AuthorizeRequest.url(shared.modgud.endpoints.endSession, [
            ("id_token_hint", idToken.revealed), ("post_logout_redirect_uri", postLogoutRedirect), ("state", state),
        ])
        return .json(.ok, ["endSessionUrl": .string(url)], cookies: [expiredCookie])
    }
}
