import Foundation
import Runtime

let flags = Flags.parseOrExit(program: "pushctl", summary: PushCtl.summary, flags: PushCtlOptions.flags)
do {
    let tool = try PushCtl(options: try PushCtlOptions(flags))
    exit(try tool.run(flags.arguments))
} catch let error as UsageError {
    Flags.exitUsage("pushctl", error)
} catch {
    FileHandle.standardError.write(Data("pushctl: \(error)\n".utf8))
    exit(2)
}
