import Core
import Synchronization

/// A message the simulator "sent".
struct MailMessage: Sendable {
    var seq: Int
    var to: String
    /// `otp`, `registration`, `magic-link` or `account-change`.
    var kind: String
    var subject: String
    var code: String?
    var link: String?
    var userId: String?
    var token: String?
    var sentAt: Double

    var json: JSON {
        var object: JSONObject = ["seq": .int(Int64(seq)), "to": .string(to), "kind": .string(kind),
                                  "subject": .string(subject)]
        if let code { object["code"] = .string(code) }
        if let link { object["link"] = .string(link) }
        if let userId { object["userId"] = .string(userId) }
        if let token { object["token"] = .string(token) }
        object["sentAt"] = .string(ISODate.format(sentAt))
        return .object(object)
    }
}

/// The dev mailbox: every message by recipient, newest last, at most
/// `perAddress` kept for each address.
final class Mailbox: Sendable {
    private struct Boxes {
        var messages: [String: [MailMessage]] = [:]
        var nextSeq = 1
    }

    private let boxes = Mutex(Boxes())
    private let perAddress = 50

    @discardableResult
    func deliver(_ message: MailMessage) -> MailMessage {
        boxes.withLock { boxes in
            var message = message
            message.seq = boxes.nextSeq
            boxes.nextSeq += 1
            let key = message.to.lowercased()
            boxes.messages[key, default: []].append(message)
            if boxes.messages[key]!.count > perAddress { boxes.messages[key]!.removeFirst() }
            return message
        }
    }

    /// Messages to `address` (or to everyone), newest first.
    func messages(to address: String?, limit: Int) -> [MailMessage] {
        boxes.withLock { boxes in
            let all: [MailMessage]
            if let address { all = boxes.messages[address.lowercased()] ?? [] } else { all = boxes.messages.values.flatMap { $0 } }
            return Array(all.sorted { $0.seq > $1.seq }.prefix(max(0, limit)))
        }
    }

    func reset() { boxes.withLock { $0 = Boxes() } }
}
