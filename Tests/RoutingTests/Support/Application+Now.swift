import HTTP
import Routing

extension Application {
    /// The answer given now, or nil (promised later, or declined).
    func respondImmediately(_ request: HTTPRequest) -> HTTPResponse? {
        guard case .now(let response) = respondImmediately(request, HTTPLaterAnswer { _ in }) else { return nil }
        return response
    }
}
