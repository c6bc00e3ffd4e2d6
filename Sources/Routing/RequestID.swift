import Core
import HTTP

/// One request's id: a generator's number, or text given as such (tests).
public struct RequestID: Sendable, CustomStringConvertible {
    enum Value: Sendable {
        case numbered(RequestIDGenerator, UInt64)
        case text(String)
    }

    let value: Value

    init(_ value: Value) { self.value = value }

    /// An id given as text (tests).
    public init(_ text: String) { value = .text(text) }

    /// The id written out.
    public var description: String {
        switch value {
        case .numbered(let generator, let number):
            String(unsafeUninitializedCapacity: RequestIDGenerator.maxLength) { generator.write(number, into: $0) }
        case .text(let text):
            text
        }
    }

    /// Calls `body` with the id's bytes and whether they are a clean field
    /// value: a number's hex digits and dash are, as written; a text is
    /// checked.
    func withBytes<R>(_ body: (_ bytes: UnsafeBufferPointer<UInt8>, _ clean: Bool) -> R) -> R {
        switch value {
        case .numbered(let generator, let number):
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RequestIDGenerator.maxLength) { buffer in
                let count = generator.write(number, into: buffer)
                return body(UnsafeBufferPointer(rebasing: buffer[..<count]), true)
            }
        case .text(let text):
            text.withContiguousUTF8 { body($0, FieldGrammar.isFieldValue(UnsafeRawBufferPointer($0))) }
        }
    }

    /// The trace a request with this id starts when no trusted proxy gave
    /// it one: the generator's random prefix and the number, mixed (so a
    /// trace id costs no system call and never repeats in a process).
    var startedTrace: TraceContext {
        switch value {
        case .numbered(let generator, let number):
            return TraceContext(high: generator.random, low: SpanIDs.mix(number))
        case .text(let text):
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return TraceContext(high: hash, low: SpanIDs.mix(hash))
        }
    }
}
