import Credentials
import Foundation
import ReplayKit
import Runtime
import Schema

let summary = """
    PushBus load tester: generates recordings and replays them against a gateway.

    COMMANDS:
      generate --devices N --commands M --seed S --out FILE [--mix default|tagging] [--rate R]
      run --file FILE --endpoint E [--window W] [--connections K] [--speed X|max] [--ids FILE] [--verify] [--json]

    A recording is JSON lines: {"t":ms,"service":"device","command":…,"payload":{…},"reply":{…}}.
    The gateway writes one with --record FILE.
    """
let flags = Flags.parseOrExit(program: "pushbus-replay", summary: summary, flags: ReplayCommandLine.flags)

func generate(_ options: ReplayCommandLine) throws -> Int32 {
    guard let out = options.out else { throw UsageError("generate needs --out FILE") }
    let generator = options.generator
    let lines = try generator.write(to: out)
    print("wrote \(lines) calls to \(out) (mix \(generator.mix.name), seed \(generator.seed))")
    return 0
}

func run(_ options: ReplayCommandLine) throws -> Int32 {
    guard let file = options.file else { throw UsageError("run needs --file FILE") }
    var run = options.run
    run.progress = !options.quiet
    run.secrets = Secrets.read(directory: options.dataDirectory)
    let calls = try Recording.read(file)
    let result = try Replayer(calls, options: run).run()
    if options.json {
        print(String(decoding: WireCodec.encode(result), as: UTF8.self))
    } else {
        print(result.text)
    }
    let verified = result.verify.map { $0.matched == $0.checked } ?? true
    return verified && result.timeouts == 0 ? 0 : 1
}

do {
    let options = try ReplayCommandLine(flags)
    switch flags.arguments.first {
    case "generate": exit(try generate(options))
    case "run": exit(try run(options))
    default: throw UsageError("give a command: generate or run (see --help)")
    }
} catch let error as UsageError {
    Flags.exitUsage("pushbus-replay", error)
} catch {
    FileHandle.standardError.write(Data("pushbus-replay: \(error)\n".utf8))
    exit(2)
}
