import ModgudSimulator
#if canImport(Glibc)
import Glibc
#endif

// Everything lives in the ModgudSimulator target; main only hands over the
// process's arguments and environment (read without Foundation).
var environment: [String: String] = [:]
var cursor = environ
while let entry = cursor.pointee {
    let text = String(cString: entry)
    if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    cursor += 1
}
let status = await SimulatorMain.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
exit(status)
