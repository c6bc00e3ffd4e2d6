import Core
import HTTPCodec

/// A parsed request line and header section.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: HTTPMethod
    /// The request target exactly as sent (origin-form, absolute-form or `*`).
    public var target: String {
        didSet { queryMark = Self.queryMark(of: target) }
    }
    /// The byte offset of the `?` in `target`, if any: found once, as
    /// `path` and `query` are read several times per request.
    private var queryMark: Int?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var framing: HTTPBodyFraming
    /// Whether the connection may carry another request after this one.
    public var keepAlive: Bool
    /// `Expect: 100-continue` was sent.
    public var expectsContinue: Bool

    public init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), framing: HTTPBodyFraming = .none,
                keepAlive: Bool = true, expectsContinue: Bool = false) {
        self.method = method
        self.target = target
        queryMark = Self.queryMark(of: target)
        self.version = version
        self.headers = headers
        self.framing = framing
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }

    /// The path part of the target, without the query.
    public var path: Substring {
        guard let queryMark else { return target[...] }
        return target[..<target.utf8.index(target.startIndex, offsetBy: queryMark)]
    }

    /// The query string after `?`, if any.
    public var query: Substring? {
        guard let queryMark else { return nil }
        return target[target.utf8.index(target.startIndex, offsetBy: queryMark + 1)...]
    }

    /// By bytes: `?` is ASCII, and a Character search would run grapheme
    /// breaking over the whole target.
    private static func queryMark(of target: String) -> Int? {
        target.withContiguousUTF8 { bytes in bytes.firstIndex(of: UInt8(ascii: "?")) }
    }
}
