import Credentials
import Foundation
import Runtime

PrivateFiles.restrictNewFiles()
let binDirectory = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    .resolvingSymlinksInPath().deletingLastPathComponent().path
let flags = Flags.parseOrExit(program: "pushbus",
                              summary: "Runs the PushBus gateway and every built service on this machine.",
                              flags: LauncherOptions.flags)
do {
    let options = try LauncherOptions(flags, binDirectory: binDirectory)
    let launcher = try Launcher(options: options, binDirectory: binDirectory)
    if options.dryRun {
        print(launcher.plan.joined(separator: "\n"))
        exit(0)
    }
    try launcher.run()
} catch let error as UsageError {
    Flags.exitUsage("pushbus", error)
} catch {
    FileHandle.standardError.write(Data("pushbus: \(error)\n".utf8))
    exit(1)
}
