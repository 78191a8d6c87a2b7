import Foundation
import Runtime

let flags = Flags.parseOrExit(program: "bench-badge", summary: BadgeBench.summary, flags: BadgeBench.flags)
do {
    let bench = try BadgeBench(flags)
    try bench.run()
    exit(0)
} catch let error as UsageError {
    Flags.exitUsage("bench-badge", error)
} catch {
    FileHandle.standardError.write(Data("bench-badge: \(error)\n".utf8))
    exit(1)
}
