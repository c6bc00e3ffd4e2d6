extension SimulatorConfig {
    /// Problems no single setting shows alone, checked once every source
    /// (file, environment, flags, or a `POST /dev/config` patch) has been
    /// applied.
    public func consistencyProblems() -> ConfigProblems {
        var problems = ConfigProblems()
        if realm.deviceCodeLifetimeSeconds < realm.deviceCodeIntervalSeconds {
            problems.add("realm.deviceCodeLifetimeSeconds (\(realm.deviceCodeLifetimeSeconds)) must be at least "
                         + "realm.deviceCodeIntervalSeconds (\(realm.deviceCodeIntervalSeconds)): a device could never poll in time")
        }
        return problems
    }
}
