import Foundation
import GatewayKit
import Runtime
import ZeroMQ

let options = GatewayOptions.parseOrExit(program: "gateway",
                                        summary: "PushBus gateway: MDP/0.1 broker, device command routing and event bus.")
let logger = Logger(label: "gateway", level: options.logLevel)
// Every client of the request endpoint and of /metrics holds a descriptor; a soft limit of 1,024
// would be the gateway's ceiling long before the machine's.
OpenFileLimit.raiseToHardLimit()
do {
    try DataDirectory.prepare(options.dataDirectory, logger: logger)
    let broker = Broker(options: options, context: try Context(), logger: logger)
    try Lifecycle.serve(stopper: broker.stopper, parentPID: options.parentPID, logger: logger) { try broker.run() }
    exit(0)
} catch {
    logger.error("gateway failed", ["error": error])
    exit(1)
}
