#if canImport(Glibc)
import Glibc
#endif
import Gateway

// Everything lives in the Gateway target; main only hands over the
// process's arguments and environment and exits with the status.
// (No Foundation: it would add ~10 MB of resident memory.)
var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    let pair = String(cString: pointer)
    if let equals = pair.firstIndex(of: "=") {
        environment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
    }
    entry += 1
}
let status = await GatewayMain.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
exit(status)
