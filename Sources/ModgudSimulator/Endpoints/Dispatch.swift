import HTTP

/// The simulator's own small route table (the gateway's Router is the
/// product's and is not imported here).
extension SimulatorCore {
    func dispatch(_ exchange: inout Exchange, config: SimulatorConfig) async -> HTTPResponse {
        let path = exchange.path
        if path == "/dev" || path.hasPrefix("/dev/") {
            guard config.devEndpoints else { return Reply.notFound() }
            return await dev(&exchange, config: config)
        }
        if path.hasPrefix("/connect/passkey/"), !["/connect/passkey/begin", "/connect/passkey/enroll/begin",
                                                   "/connect/passkey/enroll"].contains(path) {
            guard route(&exchange, "/connect/passkey/{id}", [.delete]) else { return Reply.methodNotAllowed(["DELETE"]) }
            return deletePasskey(&exchange, id: String(path.dropFirst("/connect/passkey/".count)), config: config)
        }
        switch path {
        case "/healthz":
            guard route(&exchange, path, [.get]) else { return Reply.methodNotAllowed(["GET"]) }
            return Reply.json(.ok, ["status": "ok"])
        case "/.well-known/openid-configuration":
            guard route(&exchange, path, [.get]) else { return Reply.methodNotAllowed(["GET"]) }
            return discovery(config: config)
        case "/.well-known/jwks":
            guard route(&exchange, path, [.get]) else { return Reply.methodNotAllowed(["GET"]) }
            return jwks()
        case "/api/app-info":
            guard route(&exchange, path, [.get]) else { return Reply.methodNotAllowed(["GET"]) }
            return appInfo(config: config)
        case "/api/account/native/otp/request":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await accountRequest(&exchange, .otp, config: config)
        case "/api/account/native/register":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await accountRequest(&exchange, .register, config: config)
        case "/api/account/magic-link/request":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await accountRequest(&exchange, .magicLink, config: config)
        case "/connect/token":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await token(&exchange, config: config)
        case "/connect/authorize":
            guard route(&exchange, path, [.get, .post]) else { return Reply.methodNotAllowed(["GET", "POST"]) }
            return await authorize(&exchange, config: config)
        case "/connect/userinfo":
            guard route(&exchange, path, [.get, .post]) else { return Reply.methodNotAllowed(["GET", "POST"]) }
            return userinfo(&exchange)
        case "/connect/revoke":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await revoke(&exchange, config: config)
        case "/connect/introspect":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await introspect(&exchange, config: config)
        case "/connect/logout":
            guard route(&exchange, path, [.get, .post]) else { return Reply.methodNotAllowed(["GET", "POST"]) }
            return await logout(&exchange, config: config)
        case "/connect/passkey/begin":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await passkeyBegin(&exchange, config: config)
        case "/connect/passkey/enroll/begin":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await enrollBegin(&exchange, config: config)
        case "/connect/passkey/enroll":
            guard route(&exchange, path, [.post]) else { return Reply.methodNotAllowed(["POST"]) }
            return await enroll(&exchange, config: config)
        case "/connect/passkey":
            guard route(&exchange, path, [.get]) else { return Reply.methodNotAllowed(["GET"]) }
            return listPasskeys(&exchange, config: config)
        default:
            exchange.route = "\(exchange.method.rawValue) (unknown)"
            return Reply.notFound()
        }
    }

    /// Names the route for statistics; false when the method is not allowed.
    func route(_ exchange: inout Exchange, _ pattern: String, _ methods: [HTTPMethod]) -> Bool {
        exchange.route = "\(exchange.method.rawValue) \(pattern)"
        return methods.contains(exchange.method)
    }
}
