@testable import Redis
import Testing

@Suite("Cluster slots, the slot map and redirects")
struct ClusterSlotTests {
    @Test("CRC16 and slots match Redis Cluster's specification")
    func slots() {
        #expect(Array("123456789".utf8).withUnsafeBufferPointer { ClusterSlot.crc16($0[...]) } == 0x31C3)
        #expect(ClusterSlot.of(Array("foo".utf8)) == 12182)
        #expect(ClusterSlot.of(Array("bar".utf8)) == 5061)
        // Hash tags: the part between the first { and the next }.
        #expect(ClusterSlot.of(Array("{user1000}.following".utf8)) == ClusterSlot.of(Array("{user1000}.followers".utf8)))
        #expect(ClusterSlot.of(Array("{user1000}.following".utf8)) == ClusterSlot.of(Array("user1000".utf8)))
        #expect(ClusterSlot.of(Array("foo{}{bar}".utf8)) == ClusterSlot.of(Array("foo{}{bar}".utf8)))
        #expect(ClusterSlot.of(Array("foo{}{bar}".utf8)) != ClusterSlot.of(Array("bar".utf8)), "an empty tag hashes the whole key")
        #expect(ClusterSlot.of(Array("foo{{bar}}zap".utf8)) == ClusterSlot.of(Array("{bar".utf8)))
    }

    @Test("a command is routed by its first key; EVALSHA by the key after the count; keyless commands by none")
    func commandKeys() {
        let key = Array("bff:s:abc".utf8)
        let slot = ClusterSlot.of(key)
        #expect(ClusterSlot.of(command: [Array("GET".utf8), key]) == slot)
        #expect(ClusterSlot.of(command: [Array("hmget".utf8), key, [0x76]]) == slot)
        #expect(ClusterSlot.of(command: [Array("EVALSHA".utf8), Array("abc".utf8), Array("1".utf8), key, Array("x".utf8)]) == slot)
        #expect(ClusterSlot.of(command: [Array("EVALSHA".utf8), Array("abc".utf8), Array("0".utf8)]) == nil)
        #expect(ClusterSlot.of(command: [Array("PING".utf8)]) == nil)
        #expect(ClusterSlot.of(command: [Array("PUBLISH".utf8), Array("bff:refreshed".utf8), [1]]) == nil)
        #expect(ClusterSlot.of(command: [Array("SCRIPT".utf8), Array("LOAD".utf8), Array("return 1".utf8)]) == nil)
    }

    @Test("MOVED and ASK are read from a server error; other errors are not redirects")
    func redirects() {
        #expect(ClusterRedirect("EVALSHA: MOVED 3999 127.0.0.1:6381") == .moved(slot: 3999, to: RedisAddress(host: "127.0.0.1", port: 6381)))
        #expect(ClusterRedirect("ASK 12 [::1]:7000") == .ask(slot: 12, to: RedisAddress(host: "::1", port: 7000)))
        #expect(ClusterRedirect("GET: WRONGTYPE Operation against a key") == nil)
        #expect(ClusterRedirect("MOVED 16384 127.0.0.1:6381") == nil)
        #expect(ClusterRedirect("MOVED x 127.0.0.1:6381") == nil)
    }

    @Test("CLUSTER SLOTS becomes a map; an empty host means the node asked; a malformed reply is refused")
    func slotMap() throws {
        func range(_ first: Int, _ last: Int, _ host: String, _ port: Int) -> RedisValue {
            .array([.integer(first), .integer(last), .array([.string(Array(host.utf8)), .integer(port), .string(Array("id".utf8))])])
        }
        let asked = RedisAddress(host: "10.0.0.9", port: 7000)
        let map = try #require(SlotMap(clusterSlots: .array([range(0, 5460, "", 7000), range(5461, 10922, "127.0.0.1", 7001),
                                                             range(10923, 16383, "127.0.0.1", 7002)]), asked: asked))
        #expect(map.isComplete)
        #expect(map.node(for: 0) == asked)
        #expect(map.node(for: 5461) == RedisAddress(host: "127.0.0.1", port: 7001))
        #expect(map.node(for: 16383) == RedisAddress(host: "127.0.0.1", port: 7002))
        #expect(map.nodes.count == 3)
        let partial = try #require(SlotMap(clusterSlots: .array([range(0, 100, "127.0.0.1", 7000)]), asked: asked))
        #expect(!partial.isComplete && partial.node(for: 101) == nil)
        #expect(SlotMap(clusterSlots: .array([.array([.integer(5), .integer(1)])]), asked: asked) == nil)
        #expect(SlotMap(clusterSlots: .status("OK"), asked: asked) == nil)
    }
}
