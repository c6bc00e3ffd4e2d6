extension TokenRefresher {
    /// What the refresh is tuned by; every default in one place.
    public struct Settings: Sendable {
        /// A token this close to expiry is refreshed before use.
        public var skew: Duration
        /// Modgud's reuse leeway: how long after a refresh with an unknown
        /// outcome the same refresh token may be sent again.
        public var reuseLeeway: Duration
        /// The lock's lease; renewed every third of it while Modgud is asked.
        public var lease: Duration
        /// How often a waiter reads the record when no signal wakes it.
        public var pollInterval: Duration
        /// How long a request waits for someone else's refresh in all.
        public var waitLimit: Duration
        /// The audience a refresh of the default token asks for (the
        /// configured default resource), or nil to keep the grant's.
        public var defaultResource: String?
        /// How long a failed refresh (429, Modgud unavailable) is answered
        /// again to whoever takes the lock next, without asking Modgud
        /// (`rememberFailure`); zero: never.
        public var failureHold: Duration

        /// The settings; the defaults are the gateway's.
        public init(skew: Duration = .seconds(60), reuseLeeway: Duration = .zero, lease: Duration = .seconds(15),
                    pollInterval: Duration = .milliseconds(50), waitLimit: Duration = .seconds(20),
                    defaultResource: String? = nil, failureHold: Duration = .seconds(1)) {
            self.skew = skew
            self.reuseLeeway = reuseLeeway
            self.lease = lease
            self.pollInterval = pollInterval
            self.waitLimit = waitLimit
            self.defaultResource = defaultResource
            self.failureHold = failureHold
        }
    }
}
