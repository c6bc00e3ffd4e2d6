import Core

/// A successful device authorization answer (RFC 8628 §3.2). The device
/// code is a `Secret`; `verification_uri_complete` is not read at all
/// (the user code must be read off the screen that started the sign-in).
public struct DeviceAuthorization: Sendable {
    /// The code polled at the token endpoint; never shown to a browser.
    public var deviceCode: Secret
    /// The code the person types on the approving device.
    public var userCode: String
    /// Where the person goes on the approving device (an `http` or `https` URL).
    public var verificationURI: String
    /// Seconds the codes live, at most `maximumLifetimeSeconds`.
    public var expiresIn: Int
    /// Seconds between polls (RFC 8628: 5 when Modgud names none), within `intervalRange`.
    public var interval: Int

    /// The longest lifetime taken as sent; longer ones are cut to it.
    public static let maximumLifetimeSeconds = 3600
    /// The intervals taken as sent; others are moved into the range.
    public static let intervalRange = 1...300

    /// Reads an answer; nil when a required member is missing or unusable
    /// (a user code that is empty, over 64 bytes or has control characters,
    /// a verification URI that is not `http` or `https`, no positive lifetime).
    public init?(json: JSON) {
        guard let device = json["device_code"]?.stringValue, !device.isEmpty,
              let user = json["user_code"]?.stringValue, !user.isEmpty, user.utf8.count <= 64,
              user.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }),
              let uri = json["verification_uri"]?.stringValue, uri.utf8.count <= 2048,
              uri.hasPrefix("https://") || uri.hasPrefix("http://"),
              uri.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }),
              let lifetime = json["expires_in"]?.intValue, lifetime > 0
        else { return nil }
        deviceCode = Secret(device)
        userCode = user
        verificationURI = uri
        expiresIn = min(lifetime, Self.maximumLifetimeSeconds)
        let interval = json["interval"]?.intValue ?? 5
        self.interval = min(max(interval, Self.intervalRange.lowerBound), Self.intervalRange.upperBound)
    }
}
