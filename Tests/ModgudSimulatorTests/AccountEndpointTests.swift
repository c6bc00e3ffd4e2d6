import Core
import HTTP
import TestSupport
@testable import ModgudSimulator
import Testing

@Suite("otp/request, register, magic-link/request")
struct AccountEndpointTests {
    static let uniform = "If your email is registered, you will receive a verification code."

    @Test func knownAndUnknownAddressesGetTheSameAnswer() async throws {
        try await withSimulator { sim async throws in
            let known = try await sim.postJSON("/api/account/native/otp/request", ["Email": "ada@example.com"],
                                               headers: SimHarness.gateway())
            let unknown = try await sim.postJSON("/api/account/native/otp/request", ["email": "nobody@example.com"],
                                                 headers: SimHarness.gateway())
            for response in [known, unknown] {
                #expect(response.status == 200)
                #expect(response.bodyText == #"{"Message":"\#(Self.uniform)"}"#)
                #expect(response.header("Set-Cookie") == nil)
            }
            let mail = try await sim.latestMail("ada@example.com")
            #expect(mail["kind"] == "otp")
            #expect(mail["code"]?.stringValue?.count == 6)
            #expect(mail["userId"] == "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f")
            // JitOnOtp (the default): the unknown address gets a registration code.
            #expect(try await sim.latestMail("nobody@example.com")["kind"] == "registration")
        }
    }

    @Test func registrationCodeCreatesTheUserOnRedemption() async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.postJSON("/api/account/native/otp/request",
                                                   ["EMAIL": "new@example.com", "firstname": "New", "LastName": "Person"],
                                                   headers: SimHarness.gateway())
            #expect(response.status == 200)
            #expect(try await sim.get("/dev/users?email=new@example.com").status == 404, "no user before the proof")
            let code = try #require(try await sim.latestMail("new@example.com")["code"]?.stringValue)
            let tokens = try await sim.postForm("/connect/token", [
                ("grant_type", GrantType.otp), ("username", "new@example.com"), ("otp_code", code), ("scope", "openid profile"),
            ], headers: SimHarness.gateway())
            #expect(tokens.status == 200)
            let user = try await sim.get("/dev/users?email=new@example.com").json()
            #expect(user["firstName"] == "New")
            #expect(user["lastName"] == "Person")
            #expect(user["emailConfirmed"] == true)
        }
    }

    @Test func nativeGrantsDisabledIsAnExplicitProblem() async throws {
        try await withSimulator({ $0.realm.nativeGrants = false }) { sim async throws in
            for path in ["/api/account/native/otp/request", "/api/account/native/register"] {
                let response = try await sim.postJSON(path, ["Email": "ada@example.com"], headers: SimHarness.gateway())
                #expect(response.status == 400)
                #expect(response.header("Content-Type")?.hasPrefix("application/problem+json") == true)
                let problem = try response.json()
                #expect(problem["title"] == "NativeGrants.Disabled")
                #expect(problem["status"] == 400)
                #expect(problem["detail"]?.stringValue?.isEmpty == false)
                #expect(problem["type"]?.stringValue?.isEmpty == false)
            }
        }
    }

    @Test(arguments: [
        (FieldRequirement.required, FieldRequirement.optional, ["Email": "x@example.com", "LastName": "L"] as JSON, "Firstname is required."),
        (.optional, .required, ["Email": "x@example.com", "FirstName": "F"] as JSON, "Lastname is required."),
        (.required, .required, ["Email": "x@example.com", "FirstName": " "] as JSON, "Firstname is required."),
    ])
    func requiredNamesAreEnforcedBeforeTheUniformBranch(first: FieldRequirement, last: FieldRequirement, body: JSON,
                                                        message: String) async throws {
        try await withSimulator({ config in
            config.realm.registrationFields.firstname = first
            config.realm.registrationFields.lastname = last
        }) { sim async throws in
            let response = try await sim.postJSON("/api/account/native/otp/request", body, headers: SimHarness.gateway())
            #expect(response.status == 400)
            #expect(response.bodyText == #"{"error":"\#(message)"}"#)
            let complete = try await sim.postJSON("/api/account/native/otp/request",
                                                  ["Email": "x@example.com", "FirstName": "F", "LastName": "L"],
                                                  headers: SimHarness.gateway())
            #expect(complete.status == 200)
        }
    }

    @Test func postureOffSendsNothingToUnknownAddresses() async throws {
        try await withSimulator({ $0.realm.selfRegistration = .off }) { sim async throws in
            let response = try await sim.postJSON("/api/account/native/otp/request", ["Email": "stranger@example.com"],
                                                  headers: SimHarness.gateway())
            #expect(response.status == 200)
            #expect(try await sim.get("/dev/mailbox?email=stranger@example.com").json().arrayValue?.isEmpty == true)
            _ = try await sim.requestCode("ada@example.com")
        }
    }

    @Test func explicitEndpointPostureRegistersOnlyThroughRegister() async throws {
        try await withSimulator({ $0.realm.selfRegistration = .explicitEndpoint }) { sim async throws in
            _ = try await sim.postJSON("/api/account/native/otp/request", ["Email": "later@example.com"],
                                       headers: SimHarness.gateway())
            #expect(try await sim.get("/dev/mailbox?email=later@example.com").json().arrayValue?.isEmpty == true)
            let register = try await sim.postJSON("/api/account/native/register", ["Email": "later@example.com"],
                                                  headers: SimHarness.gateway())
            #expect(register.status == 200)
            #expect(register.field("Message") == Self.uniform)
            #expect(try await sim.latestMail("later@example.com")["kind"] == "registration")
        }
    }

    @Test func registerDoesNothingUnderJitOnOtp() async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.postJSON("/api/account/native/register", ["Email": "jit@example.com"],
                                                  headers: SimHarness.gateway())
            #expect(response.status == 200)
            #expect(try await sim.get("/dev/mailbox?email=jit@example.com").json().arrayValue?.isEmpty == true)
        }
    }

    @Test func magicLinkRequestMailsALinkToKnownUsers() async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.postJSON("/api/account/magic-link/request", ["email": "ada@example.com"],
                                                  headers: SimHarness.gateway())
            #expect(response.status == 200)
            #expect(response.field("Message") == "If your email is registered, you will receive a sign-in link.")
            let mail = try await sim.latestMail("ada@example.com")
            let userId = try #require(mail["userId"]?.stringValue)
            let token = try #require(mail["token"]?.stringValue)
            #expect(mail["link"]?.stringValue == "\(sim.issuer)/magic-login?userId=\(userId)&token=\(FormURLEncoded.encode(token))")
            let unknown = try await sim.postJSON("/api/account/magic-link/request", ["Email": "nobody@example.com"],
                                                 headers: SimHarness.gateway())
            #expect(unknown.status == 200)
            #expect(try await sim.get("/dev/mailbox?email=nobody@example.com").json().arrayValue?.isEmpty == true)
        }
    }

    /// A front end that lands the link on its own origin (`--magic-link-page`).
    @Test func theMailedLinkOpensTheConfiguredPage() async throws {
        try await withSimulator({ $0.magicLinkPage = "http://localhost:8080/magic-login" }) { sim async throws in
            _ = try await sim.postJSON("/api/account/magic-link/request", ["email": "ada@example.com"],
                                       headers: SimHarness.gateway())
            let mail = try await sim.latestMail("ada@example.com")
            let token = try #require(mail["token"]?.stringValue)
            #expect(mail["link"]?.stringValue == "http://localhost:8080/magic-login?userId=\(mail["userId"]?.stringValue ?? "")"
                + "&token=\(FormURLEncoded.encode(token))")
        }
        var config = SimulatorConfig.forTesting()
        #expect(config.apply(try JSON.parse(Array(#"{"magicLinkPage":"https://app.example/landing/"}"#.utf8))).isEmpty)
        #expect(config.magicLinkPage == "https://app.example/landing")
        #expect(!config.apply(try JSON.parse(Array(#"{"magicLinkPage":"ftp://x"}"#.utf8))).isEmpty)
    }

    @Test(arguments: ["not json", "[1,2]", #"{"Email": 42}"#])
    func malformedBodiesAreRefused(body: String) async throws {
        try await withSimulator { sim async throws in
            let response = try await sim.request("POST", "/api/account/native/otp/request",
                                                 headers: [("Content-Type", "application/json")] + SimHarness.gateway(),
                                                 body: Array(body.utf8))
            #expect(response.status == 400)
        }
    }

    @Test func jitterDelaysTheUniformAnswer() async throws {
        try await withSimulator({ $0.jitter = JitterSettings(minMs: 120, maxMs: 150, invalidGrantMinMs: 0, invalidGrantMaxMs: 0) }) { sim async throws in
            let clock = ContinuousClock()
            let started = clock.now
            let response = try await sim.postJSON("/api/account/native/otp/request", ["Email": "ada@example.com"],
                                                  headers: SimHarness.gateway())
            #expect(response.status == 200)
            #expect(clock.now - started >= .milliseconds(120))
        }
    }
}
