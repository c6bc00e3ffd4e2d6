@testable import Sessions
import Testing

/// The record's plaintext: format 3 round-trips every field, the older
/// formats still open, and anything else is refused.
@Suite("SessionRecord format")
struct SessionRecordFormatTests {
    static func record(method: SignInMethod?) -> SessionRecord {
        var data = Fixtures.data()
        data.method = method
        return SessionRecord(data: data, authenticatedAt: 1_780_000_000_000, absoluteExpiresAt: 1_780_043_200_000)
    }

    @Test(arguments: SignInMethod.allCases.map(Optional.some) + [nil])
    func roundTripsEveryMethod(_ method: SignInMethod?) throws {
        let original = Self.record(method: method)
        let decoded = try #require(SessionRecord(decoding: original.encoded()))
        #expect(decoded.data == original.data)
        #expect(decoded.data.method == method)
        #expect(decoded.authenticatedAt == original.authenticatedAt)
        #expect(decoded.absoluteExpiresAt == original.absoluteExpiresAt)
    }

    /// A format 2 record is a format 3 record without the method field.
    @Test func readsFormatTwoWithoutAMethod() throws {
        var bytes = Self.record(method: nil).encoded()
        #expect(bytes.removeLast() == 0)  // the empty method's length
        bytes[0] = 2
        let decoded = try #require(SessionRecord(decoding: bytes))
        #expect(decoded.data.method == nil)
        #expect(decoded.data.subject == Fixtures.subject)
    }

    @Test func refusesAnUnknownMethodAFutureFormatAndTrailingBytes() {
        var unknown = Self.record(method: nil).encoded()
        unknown.removeLast()
        unknown += [5] + Array("radio".utf8)
        #expect(SessionRecord(decoding: unknown) == nil)

        var future = Self.record(method: .code).encoded()
        future[0] = 4
        #expect(SessionRecord(decoding: future) == nil)

        #expect(SessionRecord(decoding: Self.record(method: .code).encoded() + [0]) == nil)
    }
}
