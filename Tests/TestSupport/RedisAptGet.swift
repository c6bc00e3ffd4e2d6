import Foundation

/// Installs a Debian package the Redis fixtures need when it is missing
/// (tests run as root on the build machines).
enum AptGet {
    /// `apt-get install -y -qq package`, blocking until it ends.
    static func install(_ package: String) throws {
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/usr/bin/apt-get")
        install.arguments = ["install", "-y", "-qq", package]
        install.environment = ["DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        try install.run()
        install.waitUntilExit()
    }
}
