import Redis
import Sessions
@testable import SessionsRedis
import Testing

/// How a Redis reply becomes a stored record: the version and expiry are
/// unsigned decimals, and anything else is an unexpected reply, not a
/// record with a wrong number.
@Suite struct RedisRecordReplyTests {
    private func reply(version: String, expiry: String) -> RedisValue {
        .array([.string(Array(version.utf8)), .string(Array(expiry.utf8)), .string([1, 2, 3])])
    }

    @Test func decimalFieldsAreReadExactly() throws {
        let record = try #require(try RedisSessionStore.record(from: reply(version: "007", expiry: "18446744073709551615")))
        #expect(record.version == 7)
        #expect(record.absoluteExpiry == UInt64.max)
        #expect(record.bytes == [1, 2, 3])
        #expect(try RedisSessionStore.record(from: .null) == nil)
    }

    @Test func aMissingRecordIsNilAndPartOfOneIsRefused() throws {
        #expect(try RedisSessionStore.record(from: .array([.null, .null, .null])) == nil)
        let partial: [[RedisValue]] = [
            [.string([0x31]), .null, .string([1])],
            [.null, .string([0x31]), .string([1])],
            [.string([0x31]), .string([0x31]), .null],
            [.string([0x31]), .string([0x31])],
            [.status("1"), .string([0x31]), .string([1])],
        ]
        for fields in partial {
            #expect(throws: SessionStoreError.self, "\(fields)") { try RedisSessionStore.record(from: .array(fields)) }
        }
    }

    @Test func everyDigitCountsAndAnyOtherByteAnywhereIsRefused() throws {
        let nineteen = String(repeating: "9", count: 19)
        #expect(try RedisSessionStore.record(from: reply(version: nineteen, expiry: "1"))?.version == 9_999_999_999_999_999_999)
        #expect(try RedisSessionStore.record(from: reply(version: "1234567890123", expiry: "1"))?.version == 1_234_567_890_123)
        for length in [1, 19, 20] {
            for position in 0..<length {
                for bad in ["/", ":", " ", "a"] {
                    var digits = Array(repeating: "1", count: length)
                    digits[position] = bad
                    let text = digits.joined()
                    #expect(throws: SessionStoreError.self, "\(text)") { try RedisSessionStore.record(from: reply(version: text, expiry: "1")) }
                }
            }
        }
    }

    @Test func malformedOrOverflowingNumbersAreRefused() {
        for bad in ["", "+1", "-1", "1.0", " 1", "1a", "18446744073709551616", "99999999999999999999", "000000000000000000001"] {
            #expect(throws: SessionStoreError.self, "\(bad)") { try RedisSessionStore.record(from: reply(version: bad, expiry: "1")) }
            #expect(throws: SessionStoreError.self, "\(bad)") { try RedisSessionStore.record(from: reply(version: "1", expiry: bad)) }
        }
    }
}
