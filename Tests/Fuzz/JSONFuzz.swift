// libFuzzer entry for the JSON parser, which reads every browser body and
// every answer from Modgud. Built together with Core's JSON sources into one
// module by Tests/Fuzz/run.sh; any trap is a finding.
//
// Invariants checked on every input, with the default limits and with
// small ones:
// - parse never crashes or traps (ASan catches memory errors);
// - a document that parses is written back as text that parses to an equal
//   value, and writing that value gives the same text again.

/// Limits tight enough for the fuzzer to reach every refusal.
private let small = JSONLimits(maxDepth: 4, maxBytes: 256, maxStringBytes: 16)
/// Room for what the writer makes of a parsed value (escapes grow it).
private let roomy = JSONLimits(maxDepth: JSONLimits.depthCeiling, maxBytes: 1 << 30, maxStringBytes: 1 << 30)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    for limits in [JSONLimits(), small] {
        guard let value = try? JSON.parse(input, limits: limits) else { continue }
        let text = value.serialized
        guard let again = try? JSON.parse(text, limits: roomy) else {
            fatalError("written text does not parse: \(String(decoding: text, as: UTF8.self))")
        }
        guard again == value else { fatalError("written text parses to another value") }
        guard again.serialized == text else { fatalError("writing is not stable") }
    }
    return 0
}
