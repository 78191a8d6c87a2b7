import Foundation
import Runtime

let settings = BadgeBench.Settings.parseOrExit(program: "bench-badge", summary: BadgeBench.summary)
do {
    let bench = BadgeBench(settings: settings)
    try bench.run()
    exit(0)
} catch let error as UsageError {
    Flags.exitUsage("bench-badge", error)
} catch {
    FileHandle.standardError.write(Data("bench-badge: \(error)\n".utf8))
    exit(1)
}
