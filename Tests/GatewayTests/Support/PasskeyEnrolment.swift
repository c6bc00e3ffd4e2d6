import Core
import Crypto
import HTTP
import ModgudSimulator
import WebAuthn

/// A software authenticator holding one passkey, enrolled by talking to the
/// simulator in process as the gateway's client would (OTP sign-in, then
/// enroll/begin and enroll with the user's Bearer token).
actor PasskeyEnrolment {
    private var authenticator = SoftwareAuthenticator()

    func enrol(harness: GatewayHarness, email: String, origin: String) async throws {
        let sim = harness.simulator
        let basic = "Basic " + Base64.encode(Array("bff:bff-secret".utf8))
        _ = await sim.respond(Self.request(.post, "/api/account/native/otp/request", body: JSON.object(["Email": .string(email)]).serialized,
                                           headers: [("Authorization", basic), ("Modgud-Forwarded-For", "127.0.0.1"),
                                                     ("Content-Type", "application/json")]))
        guard let code = sim.mail(to: email).first?.code else { throw Failure.step("no code mailed") }
        let form = FormURLEncoded.serialize([("grant_type", "urn:cocoar:otp"), ("username", email), ("otp_code", code),
                                             ("scope", "openid offline_access")])
        let tokens = try Self.json(await sim.respond(Self.request(.post, "/connect/token", body: Array(form.utf8),
            headers: [("Authorization", basic), ("Modgud-Forwarded-For", "127.0.0.1"),
                      ("Content-Type", "application/x-www-form-urlencoded")])))
        guard let access = tokens["access_token"]?.stringValue else { throw Failure.step("no access token") }
        let bearer = [("Authorization", "Bearer " + access)]
        let begun = try Self.json(await sim.respond(Self.request(.post, "/connect/passkey/enroll/begin", headers: bearer)))
        guard let ceremony = begun["ceremonyId"]?.stringValue, let options = begun["options"] else { throw Failure.step("no ceremony") }
        let attestation = try authenticator.makeCredential(options: options, origin: origin)
        let enrolled = await sim.respond(Self.request(.post, "/connect/passkey/enroll",
            body: JSON.object(["ceremonyId": .string(ceremony), "attestation": attestation]).serialized,
            headers: bearer + [("Content-Type", "application/json")]))
        guard enrolled.status == .ok else { throw Failure.step("enrol answered \(enrolled.status.code)") }
    }

    func assert(options: JSON, origin: String) throws -> JSON {
        try authenticator.getAssertion(options: options, origin: origin)
    }

    static func request(_ method: HTTPMethod, _ path: String, body: [UInt8] = [], headers: [(String, String)]) -> HTTPRequest {
        var fields = HTTPHeaders(headers.map { HTTPField(name: $0.0, value: $0.1) })
        fields.add("Host", "127.0.0.1")
        let head = HTTPRequestHead(method: method, target: path, headers: fields,
                                   framing: body.isEmpty ? .none : .contentLength(body.count))
        return HTTPRequest(head: head, body: .bytes(body), peer: nil)
    }

    static func json(_ response: HTTPResponse) throws -> JSON {
        guard case .bytes(let bytes) = response.body, let json = try? JSON.parse(bytes) else { throw Failure.step("not JSON") }
        return json
    }

    enum Failure: Error { case step(String) }
}
