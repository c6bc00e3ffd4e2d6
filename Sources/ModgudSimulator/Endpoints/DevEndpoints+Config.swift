import Core
import HTTP

/// `POST /dev/config` and `POST /dev/faults`.
extension SimulatorCore {
    /// Applies a patch in the config file's shape (plus the flat switches);
    /// all or nothing. A `"faults"` array arms faults as `/dev/faults` does.
    func changeConfig(_ exchange: inout Exchange) async -> HTTPResponse {
        guard let body = await exchange.json(), case .object(var object) = body else {
            return Reply.json(.badRequest, ["error": "invalid_request", "error_description": "The body must be a JSON object."])
        }
        var faults: [FaultInjector.Fault] = []
        if let list = object["faults"] {
            guard let parsed = Self.parseFaults(list) else { return Self.badFaults() }
            faults = parsed
            object["faults"] = nil
        }
        for key in ["listen", "loops", "dev"] where object.value(forKeyIgnoringCase: key) != nil {
            return Reply.json(.badRequest, ["error": "invalid_request",
                                            "error_description": .string("\(key) cannot change while running.")])
        }
        var problems = ConfigProblems()
        let updated = state.updateConfig { config in
            var candidate = config
            problems = candidate.apply(.object(object))
            problems.append(candidate.consistencyProblems())
            if problems.isEmpty { config = candidate }
        }
        guard problems.isEmpty else {
            return Reply.json(.badRequest, ["error": "invalid_config",
                                            "problems": .array(problems.messages.map { .string($0) })])
        }
        if let url = updated.publicURL { state.setIssuer(url) }
        state.seedUsers(object.value(forKeyIgnoringCase: "users") != nil ? updated.users : [])
        faults.forEach(state.faults.arm)
        state.logger.info("dev.config_changed", ["keys": .string(object.keys.joined(separator: ","))])
        return Reply.json(.ok, updated.json)
    }

    /// `{"path","method"?,"count"?,"status"|"delayMs"|"drop"}` or `{"faults":[…]}`.
    func armFaults(_ exchange: inout Exchange) async -> HTTPResponse {
        guard let body = await exchange.json() else { return Self.badFaults() }
        let list = body.value(forKeyIgnoringCase: "faults") ?? .array([body])
        guard let faults = Self.parseFaults(list) else { return Self.badFaults() }
        faults.forEach(state.faults.arm)
        return Reply.json(.ok, ["faults": .array(state.faults.armed.map(\.json))])
    }

    private static func parseFaults(_ list: JSON) -> [FaultInjector.Fault]? {
        guard let items = list.arrayValue else { return nil }
        var faults: [FaultInjector.Fault] = []
        for item in items {
            guard let fault = FaultInjector.parse(item) else { return nil }
            faults.append(fault)
        }
        return faults
    }

    private static func badFaults() -> HTTPResponse {
        Reply.json(.badRequest, ["error": "invalid_request", "error_description":
            "A fault is {\"path\":\"/connect/token\",\"method\"?:\"POST\",\"count\"?:1, and one of \"status\":503, \"delayMs\":2000, \"drop\":true}."])
    }
}
