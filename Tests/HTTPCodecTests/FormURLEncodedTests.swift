import Testing
import HTTPCodec

@Suite("application/x-www-form-urlencoded")
struct FormURLEncodedTests {
    @Test func parsesPairsInOrder() throws {
        let pairs = try #require(FormURLEncoded.parse("grant_type=urn%3Acocoar%3Aotp&username=a%2Bb%40example.com&scope=openid+offline_access&empty=&flag"))
        #expect(pairs.map(\.name) == ["grant_type", "username", "scope", "empty", "flag"])
        #expect(pairs.first("grant_type") == "urn:cocoar:otp")
        #expect(pairs.first("username") == "a+b@example.com")
        #expect(pairs.first("scope") == "openid offline_access")
        #expect(pairs.first("empty") == "")
        #expect(pairs.first("flag") == "")
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "a=%FF", "%C3=1"])
    func refusesMalformedEscapes(_ text: String) {
        #expect(FormURLEncoded.parse(text) == nil)
    }

    @Test func roundTripsAnyText() throws {
        let pairs = [("assertion", #"{"id":"x/y+z=","type":"public-key"}"#), ("näme", "a b&c=d%e"), ("", "")]
        let parsed = try #require(FormURLEncoded.parse(FormURLEncoded.serialize(pairs)))
        #expect(parsed.map(\.name) == pairs.map(\.0))
        #expect(parsed.map(\.value) == pairs.map(\.1))
    }

    @Test func escapesEverythingButUnreserved() {
        #expect(FormURLEncoded.encode("a b:c/d?e&f=g~h") == "a+b%3Ac%2Fd%3Fe%26f%3Dg%7Eh")
        #expect(FormURLEncoded.encode("AZaz09*-._") == "AZaz09*-._")
    }
}
