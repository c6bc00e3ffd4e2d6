import Core
import Synchronization

/// What an injected fault does to a call.
public enum FaultAction: Sendable, Equatable {
    /// Answer with this status (500, 503, …) and a small JSON body.
    case status(Int)
    /// Wait this long, then handle the call normally.
    case delay(milliseconds: Int)
    /// Close the connection instead of answering (the status line and
    /// headers go out, then the body is cut off: the HTTP server has no
    /// way to close before the head).
    case drop
    /// Handle the call normally (a refresh token is redeemed, a code
    /// spent), then lose the answer as `drop` does: the server acted, the
    /// caller never learns how.
    case dropAfterHandling
}

/// Faults armed for the next N calls to a path.
final class FaultInjector: Sendable {
    struct Fault: Sendable {
        var path: String
        var method: String?
        var remaining: Int
        var action: FaultAction

        var json: JSON {
            var object: JSONObject = ["path": .string(path), "remaining": .int(Int64(remaining))]
            object["method"] = method.map { .string($0) } ?? .null
            switch action {
            case .status(let code): object["status"] = .int(Int64(code))
            case .delay(let ms): object["delayMs"] = .int(Int64(ms))
            case .drop: object["drop"] = true
            case .dropAfterHandling: object["dropAfterHandling"] = true
            }
            return .object(object)
        }
    }

    private let faults = Mutex<[Fault]>([])

    func arm(_ fault: Fault) { faults.withLock { $0.append(fault) } }

    /// The action for this call, if a fault is armed for it (first armed first).
    func take(method: String, path: String) -> FaultAction? {
        faults.withLock { faults in
            guard let index = faults.firstIndex(where: { $0.path == path && ($0.method == nil || $0.method == method) })
            else { return nil }
            faults[index].remaining -= 1
            let action = faults[index].action
            if faults[index].remaining <= 0 { faults.remove(at: index) }
            return action
        }
    }

    var armed: [Fault] { faults.withLock { $0 } }

    func reset() { faults.withLock { $0.removeAll() } }

    /// Reads `{"path","method"?,"count"?,"status"|"delayMs"|"drop"|"dropAfterHandling"}`.
    static func parse(_ json: JSON) -> Fault? {
        guard let path = json.value(forKeyIgnoringCase: "path")?.stringValue, path.hasPrefix("/") else { return nil }
        let count = json.value(forKeyIgnoringCase: "count")?.intValue ?? 1
        guard count >= 1 else { return nil }
        let method = json.value(forKeyIgnoringCase: "method")?.stringValue?.uppercased()
        let action: FaultAction
        if let status = json.value(forKeyIgnoringCase: "status")?.intValue, (400...599).contains(status) {
            action = .status(status)
        } else if let delay = json.value(forKeyIgnoringCase: "delayMs")?.intValue, delay >= 0 {
            action = .delay(milliseconds: delay)
        } else if json.value(forKeyIgnoringCase: "drop")?.boolValue == true {
            action = .drop
        } else if json.value(forKeyIgnoringCase: "dropAfterHandling")?.boolValue == true {
            action = .dropAfterHandling
        } else {
            return nil
        }
        return Fault(path: path, method: method, remaining: count, action: action)
    }
}
