import Core
import HTTP
import Routing

/// Reads and checks the JSON object a `/bff/*` endpoint takes. Every
/// refusal is a 400 (or 413/415) with a sentence naming the field, never
/// echoing its value, and happens before any call to Modgud.
public struct JSONRequest: Sendable {
    public let object: JSON

    /// Reads the body: `Content-Type: application/json`, within the route's
    /// limit, a strict JSON object.
    public static func read(_ request: HTTPRequest, context: RequestContext) async throws -> JSONRequest {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingSpacesAndTabs.lowercased()
        guard type == "application/json" else {
            throw GatewayError(.unsupportedMediaType, "invalid_request", "The body must be application/json.")
        }
        let bytes = try await request.body.collect(upTo: context.routeOptions.maxBodyBytes)
        guard let json = try? JSON.parse(bytes, limits: JSONLimits(maxDepth: 16)), case .object = json else {
            throw GatewayError.badRequest("The body must be a JSON object.")
        }
        return JSONRequest(object: json)
    }

    /// A required string of 1…`maxLength` characters without control characters.
    public func string(_ name: String, maxLength: Int = 256) throws -> String {
        guard let value = try optionalString(name, maxLength: maxLength) else {
            throw GatewayError.badRequest("\(name) is required.")
        }
        return value
    }

    /// An optional string; absent and `null` are nil, an empty string is refused.
    public func optionalString(_ name: String, maxLength: Int = 256) throws -> String? {
        guard let value = object[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw GatewayError.badRequest("\(name) must be a string.") }
        guard !text.isEmpty, text.count <= maxLength else {
            throw GatewayError.badRequest("\(name) must be 1 to \(maxLength) characters long.")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw GatewayError.badRequest("\(name) must not contain control characters.")
        }
        return text
    }

    /// A required e-mail address (checked for shape only: Modgud decides
    /// whether it exists).
    public func email(_ name: String = "email") throws -> String {
        let text = try string(name, maxLength: 254)
        guard EmailShape.isPlausible(text) else { throw GatewayError.badRequest("\(name) must be an e-mail address.") }
        return text
    }

    /// A required digits-only code (one-time code, TOTP code) of `lengths`.
    public func digits(_ name: String, lengths: ClosedRange<Int> = 6...8) throws -> String {
        let text = try string(name, maxLength: lengths.upperBound)
        guard lengths.contains(text.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw GatewayError.badRequest("\(name) must be \(lengths.lowerBound) to \(lengths.upperBound) digits.")
        }
        return text
    }

    /// An optional digits-only code.
    public func optionalDigits(_ name: String, lengths: ClosedRange<Int> = 6...8) throws -> String? {
        guard let value = object[name], !value.isNull else { return nil }
        return try digits(name, lengths: lengths)
    }

    /// A required JSON object field (a WebAuthn credential).
    public func objectField(_ name: String) throws -> JSON {
        guard let value = object[name], case .object = value else { throw GatewayError.badRequest("\(name) must be an object.") }
        return value
    }
}

/// The shape of an e-mail address: one `@`, a non-empty local part, a
/// domain with a dot and no spaces. Deliverability is Modgud's business.
enum EmailShape {
    static func isPlausible(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { return false }
        let domain = parts[1]
        guard domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else { return false }
        return !text.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 || "<>(),;:\\\"[]".unicodeScalars.contains($0) && $0 != "@" }
    }
}

extension JSON {
    /// An object from pairs built at run time, in order (a later repeat of
    /// a key replaces the earlier value).
    static func makeObject(_ pairs: [(String, JSON)]) -> JSON {
        var object = JSONObject()
        for (key, value) in pairs { object[key] = value }
        return .object(object)
    }
}
