import Core

/// The checks on the hand-off's fields: each refusal a 400
/// `invalid_request` that never echoes the value.
enum AppLoginInput {
    /// A 43-character base64url value: a request id, an S256 challenge.
    static func isBase64URL43(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy(isBase64URLCharacter)
    }

    private static func isBase64URLCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// The app's S256 challenge.
    static func challenge(_ input: JSONRequest) throws -> String {
        guard try input.string("codeChallengeMethod", maxLength: 16) == "S256" else {
            throw GatewayError.badRequest("codeChallengeMethod must be S256.")
        }
        let challenge = try input.string("codeChallenge", maxLength: 128)
        guard isBase64URL43(challenge) else {
            throw GatewayError.badRequest("codeChallenge must be 43 base64url characters (an S256 challenge).")
        }
        return challenge
    }

    /// The app's `state`: 1–512 printable ASCII characters.
    static func state(_ input: JSONRequest) throws -> String {
        let state = try input.string("state", maxLength: 512)
        guard state.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw GatewayError.badRequest("state must be 1 to 512 printable ASCII characters.")
        }
        return state
    }

    /// The app's PKCE verifier: 43–128 characters of RFC 7636's alphabet.
    static func verifier(_ input: JSONRequest) throws -> String {
        let verifier = try input.string("codeVerifier", maxLength: 128)
        guard verifier.utf8.count >= 43, verifier.utf8.allSatisfy({ isBase64URLCharacter($0) || $0 == 0x2E || $0 == 0x7E }) else {
            throw GatewayError.badRequest("codeVerifier must be 43 to 128 characters of A-Z, a-z, 0-9, -, ., _ and ~.")
        }
        return verifier
    }
}

extension GatewayError {
    /// An unknown, used or expired app request: one answer for all three.
    static let appRequestInvalid = GatewayError(.forbidden, "app_request_invalid",
                                                "The app's sign-in request is unknown, used or expired; start again in the app.")
    /// The session signed in too long ago to be handed to an app.
    static let sessionTooOld = GatewayError(.forbidden, "session_too_old",
                                            "Only a sign-in of the last few minutes can continue in the app; sign in again.")
    /// An unknown, used, expired or burnt code, or a wrong verifier.
    static let appCodeInvalid = GatewayError(.badRequest, "invalid_grant",
                                             "The code is unknown, used or expired, or the verifier does not match.")
}
