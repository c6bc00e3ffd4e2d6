import Testing
import WebAuthn

@Suite("Sign count rule")
struct SignCountTests {
    /// The authenticator's first assertion carries count 1.
    @Test(arguments: [
        (UInt32(0), SignCountStatus.advanced),
        (1, .possibleClone),   // equal: replayed or cloned
        (2, .possibleClone),   // going backwards
        (UInt32.max, .possibleClone),
    ])
    func countingAuthenticator(_ stored: UInt32, _ status: SignCountStatus) throws {
        var enrolled = try Enrolled()
        let verified = try verifyAssertion(try enrolled.assert(), key: enrolled.credential.publicKey, storedSignCount: stored)
        #expect(verified.signCount == 1)
        #expect(verified.signCountStatus == status)
    }

    /// An authenticator that stopped counting (new count 0) after a non-zero
    /// stored count is a clone signal (WebAuthn §7.2 step 21).
    @Test(arguments: [(UInt32(0), SignCountStatus.notSupported), (5, .possibleClone)])
    func nonCountingAuthenticator(_ stored: UInt32, _ status: SignCountStatus) throws {
        var enrolled = try Enrolled { $0.countsSignatures = false }
        let verified = try verifyAssertion(try enrolled.assert(), key: enrolled.credential.publicKey, storedSignCount: stored)
        #expect(verified.signCount == 0)
        #expect(verified.signCountStatus == status)
    }

    @Test func aReplayedAssertionIsFlagged() throws {
        var enrolled = try Enrolled()
        let first = try enrolled.assert()
        let second = try enrolled.assert()
        let key = enrolled.credential.publicKey
        let afterSecond = try verifyAssertion(second, key: key, storedSignCount: 1)
        #expect(afterSecond.signCount == 2 && afterSecond.signCountStatus == .advanced)
        // The older assertion arriving later: signature fine, counter behind.
        let late = try verifyAssertion(first, key: key, storedSignCount: afterSecond.signCount)
        #expect(late.signCountStatus == .possibleClone)
    }
}
