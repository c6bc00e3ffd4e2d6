import Foundation
import Gateway

// Everything lives in the Gateway target; main only hands over the
// process's arguments and environment and exits with the status.
let status = await GatewayMain.run(arguments: Array(CommandLine.arguments.dropFirst()),
                                   environment: ProcessInfo.processInfo.environment)
exit(status)
