import HTTP
import Testing

@Suite("Field name sets")
struct FieldNameSetTests {
    let set = FieldNameSet(["connection", "Keep-Alive", "te", "x-forwarded-for"])

    @Test func namesMatchIgnoringASCIICaseOnly() {
        for name in ["connection", "Connection", "CONNECTION", "keep-alive", "KEEP-ALIVE", "te", "TE", "X-Forwarded-For"] {
            #expect(set.contains(name), "\(name)")
        }
        // Same length, one byte off; case folding only for letters; no
        // prefixes, no longer names, nothing empty.
        for name in ["connectiom", "keep_alive", "tf", "t", "", "connections", "x-forwarded-fo", "x-forwarded-fork",
                     "KEEP\u{0D}ALIVE", "c\u{0130}nnection"] {
            #expect(!set.contains(name), "\(name)")
        }
    }

    @Test func anEmptySetHoldsNothing() {
        #expect(!FieldNameSet([]).contains(""))
        #expect(!FieldNameSet([]).contains("te"))
    }
}
