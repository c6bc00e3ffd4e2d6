import Core
import Crypto

// Reading the options JSON the way a browser does before it calls the
// authenticator. Both the bare options and `{"publicKey": {…}}` are read.
extension SoftwareAuthenticator {
    /// What `makeCredential` needs from creation options.
    struct CreationRequest {
        var rpId: String
        var userId: [UInt8]
        var userName: String
        var challenge: [UInt8]
        var algorithms: [Int]
        var excludeCredentials: [[UInt8]]
    }

    /// What `getAssertion` needs from request options.
    struct AssertionRequest {
        var rpId: String
        var challenge: [UInt8]
        var allowCredentials: [[UInt8]]
    }

    static func creationRequest(_ options: JSON, origin: String) throws(WebAuthnError) -> CreationRequest {
        let options = unwrap(options)
        guard let user = options["user"], case .object = user else { throw .invalidOptions(field: "user") }
        guard let userId = user["id"]?.stringValue.flatMap({ Base64URL.decode($0) }), (1...64).contains(userId.count) else {
            throw .invalidOptions(field: "user.id")
        }
        guard let userName = user["name"]?.stringValue else { throw .invalidOptions(field: "user.name") }
        let challenge = try challenge(options)
        var algorithms: [Int] = []
        if let params = options["pubKeyCredParams"] {
            guard let elements = params.arrayValue else { throw .invalidOptions(field: "pubKeyCredParams") }
            for element in elements where element["type"]?.stringValue == "public-key" {
                guard let alg = element["alg"]?.intValue else { throw .invalidOptions(field: "pubKeyCredParams.alg") }
                algorithms.append(alg)
            }
        } else {
            algorithms = [COSEAlgorithm.es256.rawValue]  // the spec's default when the list is empty
        }
        let rpId = try rpId(options["rp"]?["id"], origin: origin, field: "rp.id")
        let excluded = try descriptors(options["excludeCredentials"], field: "excludeCredentials")
        return CreationRequest(rpId: rpId, userId: userId, userName: userName, challenge: challenge,
                               algorithms: algorithms.isEmpty ? [COSEAlgorithm.es256.rawValue] : algorithms,
                               excludeCredentials: excluded)
    }

    static func assertionRequest(_ options: JSON, origin: String) throws(WebAuthnError) -> AssertionRequest {
        let options = unwrap(options)
        let challenge = try challenge(options)
        let rpId = try rpId(options["rpId"], origin: origin, field: "rpId")
        let allowed = try descriptors(options["allowCredentials"], field: "allowCredentials")
        return AssertionRequest(rpId: rpId, challenge: challenge, allowCredentials: allowed)
    }

    /// The options inside `{"publicKey": …}`, or the options themselves.
    private static func unwrap(_ options: JSON) -> JSON {
        if options["challenge"] == nil, let inner = options["publicKey"] { return inner }
        return options
    }

    private static func challenge(_ options: JSON) throws(WebAuthnError) -> [UInt8] {
        guard let text = options["challenge"]?.stringValue, let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw .invalidOptions(field: "challenge")
        }
        return bytes
    }

    /// The RP ID given, or else the origin's host, as a browser defaults it.
    private static func rpId(_ value: JSON?, origin: String, field: String) throws(WebAuthnError) -> String {
        if let value, !value.isNull {
            guard let text = value.stringValue, !text.isEmpty else { throw .invalidOptions(field: field) }
            return text
        }
        guard let host = host(ofOrigin: origin) else { throw .invalidOptions(field: field) }
        return host
    }

    /// `app.example.com` from `https://app.example.com:8443`; nil for an
    /// origin that is not http(s).
    static func host(ofOrigin origin: String) -> String? {
        let rest: Substring
        if origin.hasPrefix("https://") {
            rest = origin.dropFirst("https://".count)
        } else if origin.hasPrefix("http://") {
            rest = origin.dropFirst("http://".count)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" }
        let host = authority.hasPrefix("[") ? authority : authority.prefix { $0 != ":" }
        return host.isEmpty ? nil : String(host)
    }

    /// The ids of `[{"type":"public-key","id":…}]`; entries of another type are skipped.
    private static func descriptors(_ value: JSON?, field: String) throws(WebAuthnError) -> [[UInt8]] {
        guard let value, !value.isNull else { return [] }
        guard let elements = value.arrayValue else { throw .invalidOptions(field: field) }
        var ids: [[UInt8]] = []
        for element in elements where element["type"]?.stringValue == "public-key" {
            guard let id = element["id"]?.stringValue.flatMap({ Base64URL.decode($0) }) else {
                throw .invalidOptions(field: field)
            }
            ids.append(id)
        }
        return ids
    }
}
