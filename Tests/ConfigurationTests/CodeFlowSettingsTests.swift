import Testing
@testable import Configuration

@Suite("Code-flow settings")
struct CodeFlowSettingsTests {
    @Test("the defaults: on, errors to /, back to the public origin after logout, 60 s skew")
    func defaults() throws {
        let config = try loadConfig(["BFF_PUBLIC_ORIGIN": "https://app.example.com"])
        #expect(config.codeFlow)
        #expect(config.signInErrorPath == "/")
        #expect(config.postLogoutRedirect == "https://app.example.com/")
        #expect(config.redirectURI == "https://app.example.com/bff/callback")
        #expect(config.idTokenSkew == .seconds(60))
    }

    @Test("each is read")
    func given() throws {
        let config = try loadConfig(["BFF_CODE_FLOW": "false", "BFF_SIGNIN_ERROR_PATH": "/signin/failed?from=bff",
                                     "BFF_POST_LOGOUT_REDIRECT_URI": "https://www.example.com/bye", "BFF_ID_TOKEN_SKEW_S": "0"])
        #expect(!config.codeFlow)
        #expect(config.signInErrorPath == "/signin/failed?from=bff")
        #expect(config.postLogoutRedirect == "https://www.example.com/bye")
        #expect(config.idTokenSkew == .zero)
    }

    @Test("an error path off the origin, a relative or query-bearing logout URI, a skew past 300 are problems",
          arguments: [
              ("BFF_SIGNIN_ERROR_PATH", "//evil.example"), ("BFF_SIGNIN_ERROR_PATH", "https://evil.example/"),
              ("BFF_SIGNIN_ERROR_PATH", "/%2F%2Fevil"), ("BFF_SIGNIN_ERROR_PATH", "/a b"),
              ("BFF_POST_LOGOUT_REDIRECT_URI", "/bye"), ("BFF_POST_LOGOUT_REDIRECT_URI", "javascript:alert(1)"),
              ("BFF_POST_LOGOUT_REDIRECT_URI", "https://app.example.com/?x=1"), ("BFF_ID_TOKEN_SKEW_S", "301"),
              ("BFF_CODE_FLOW", "yes"),
          ])
    func refused(_ name: String, _ value: String) throws {
        let problems = try loadProblems([name: value])
        #expect(problems.map(\.setting) == [name])
    }
}
