import Credentials
import Foundation
import FuzzKit
import Runtime
import Schema

let options = FuzzOptions.parseOrExit(program: "pushbus-fuzz",
                                      summary: "Sends random and mutated messages to a gateway; every addressable one must get an error reply.")
do {
    let fuzzer = WireFuzzer(endpoint: options.endpoint, messages: options.messages, seed: options.seed, window: options.window,
                            secrets: Secrets.read(directory: options.dataDirectory))
    let result = try fuzzer.run()
    if options.json {
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
