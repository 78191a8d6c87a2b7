import Credentials
import Foundation
import FuzzKit
import Runtime
import Schema

let flags = Flags.parseOrExit(program: "pushbus-fuzz",
                              summary: "Sends random and mutated messages to a gateway; every addressable one must get an error reply.",
                              flags: [
                                  Flag("endpoint", default: "tcp://127.0.0.1:5555", help: "The gateway's request endpoint."),
                                  Flag("messages", default: "100000", help: "How many messages to send."),
                                  Flag("seed", default: "1", help: "Seed; the same seed sends the same messages."),
                                  Flag("window", default: "256", help: "Addressable messages awaiting a reply at most."),
                                  Flag("data-dir", default: "./data", help: "The deployment's data directory: its secrets sign the mutated payloads so they reach the services."),
                                  .switch("json", help: "Print the result as JSON."),
                              ])
do {
    guard let seed = UInt64(flags.string("seed")) else { throw UsageError("--seed must be a whole number") }
    let fuzzer = WireFuzzer(endpoint: flags.string("endpoint"), messages: try flags.int("messages", in: 1...100_000_000),
                            seed: seed, window: try flags.int("window", in: 1...100_000),
                            secrets: Secrets.read(directory: flags.string("data-dir")))
    let result = try fuzzer.run()
    if flags.bool("json") {
        print(String(decoding: WireCodec.encode(result), as: UTF8.self))
    } else {
        print("sent \(result.sent), addressable \(result.addressable), replies \(result.replies) in \(String(format: "%.1f", result.seconds)) s")
        print("codes " + result.codes.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
    }
    exit(result.replies == result.addressable ? 0 : 1)
} catch let error as UsageError {
    Flags.exitUsage("pushbus-fuzz", error)
} catch {
    FileHandle.standardError.write(Data("pushbus-fuzz: \(error)\n".utf8))
    exit(2)
}
