import Core
import HTTP
import Modgud
import Routing

/// `POST /bff/otp/request`, `/bff/register`, `/bff/magic/request`: checked
/// here, then forwarded to Modgud as the client with the browser's address;
/// Modgud's uniform answer (or its refusal, or its 429) goes back as is.
struct CodeRequestEndpoints: Sendable {
    let shared: SignInContext

    func register(in router: inout RouterBuilder, options: RouteOptions) {
        router.add(.post, "/bff/otp/request", options: options) { request, context in
            try await forward(request, context, call: .otpRequest, url: shared.modgud.endpoints.otpRequest,
                              fields: [("Email", .email), ("FirstName", .name("firstName")),
                                       ("LastName", .name("lastName")), ("InviteCode", .name("inviteCode"))])
        }
        router.add(.post, "/bff/register", options: options) { request, context in
            try await forward(request, context, call: .register, url: shared.modgud.endpoints.register,
                              fields: [("Email", .email), ("FirstName", .name("firstName")), ("LastName", .name("lastName"))])
        }
        router.add(.post, "/bff/magic/request", options: options) { request, context in
            try await forward(request, context, call: .magicRequest, url: shared.modgud.endpoints.magicLinkRequest,
                              fields: [("Email", .email)])
        }
    }

    enum Field {
        case email
        case name(String)
    }

    /// Validates every field before Modgud hears of the request, then
    /// sends Modgud's own (PascalCase) field names.
    private func forward(_ request: HTTPRequest, _ context: RequestContext, call: ModgudCall, url: String,
                         fields: [(String, Field)]) async throws -> HTTPResponse {
        let input = try await JSONRequest.read(request, context: context)
        var body = JSONObject()
        for (modgudName, field) in fields {
            switch field {
            case .email: body[modgudName] = .string(try input.email())
            case .name(let name): if let value = try input.optionalString(name, maxLength: 200) { body[modgudName] = .string(value) }
            }
        }
        do {
            let reply = try await shared.modgud.postJSON(call, url, body: .object(body), forwardedFor: shared.clientAddress(request))
            return shared.relay.relay(reply, endpoint: call.rawValue, context: context)
        } catch {
            throw shared.relay.failure(error, endpoint: call.rawValue, context: context)
        }
    }
}
