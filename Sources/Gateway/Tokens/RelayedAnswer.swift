import HTTP

/// An answer produced deep in a handler that goes to the browser as it is
/// (a relayed 429).
struct RelayedAnswer: Error, Sendable {
    let response: HTTPResponse

    init(_ response: HTTPResponse) {
        self.response = response
    }
}
