import Runtime

/// pushbus-fuzz's settings, from flags or `PUSHBUS_*` variables; each property's initial value is
/// its flag's default.
struct FuzzOptions: Options {
    var endpoint = DefaultEndpoints.request
    var messages = 100_000
    var seed: UInt64 = 1
    var window = 256
    var dataDirectory = "./data"
    var json = false

    init() {}

    static let options: [Option<FuzzOptions>] = [
        .string("endpoint", \.endpoint, help: "The gateway's request endpoint."),
        .int("messages", \.messages, in: 1...100_000_000, help: "How many messages to send."),
        Option("seed", \.seed, help: "Seed; the same seed sends the same messages.", format: { String($0) }, parse: { text throws(UsageError) in
            guard let seed = UInt64(text) else { throw UsageError("--seed must be a whole number") }
            return seed
        }),
        .int("window", \.window, in: 1...100_000, help: "Addressable messages awaiting a reply at most."),
        .string("data-dir", \.dataDirectory,
                help: "The deployment's data directory: its secrets sign the mutated payloads so they reach the services."),
        .switch("json", \.json, help: "Print the result as JSON."),
    ]
}
