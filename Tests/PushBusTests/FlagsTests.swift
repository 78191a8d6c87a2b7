import Runtime
import Testing

@Suite("flags")
struct FlagsTests {
    func parse(_ args: [String], env: [String: String] = [:]) throws -> Flags {
        var flags = Flags(program: "t", summary: "test", flags: [
            Flag("data-dir", default: "./data", help: "where"),
            Flag("credit", default: "64", help: "how many"),
            .switch("json", help: "raw"),
        ])
        try flags.parse(args, environment: env)
        return flags
    }

    @Test func defaultsEnvironmentAndCommandLineInThatOrder() throws {
        #expect(try parse([]).string("data-dir") == "./data")
        #expect(try parse([], env: ["PUSHBUS_DATA_DIR": "/env"]).string("data-dir") == "/env")
        #expect(try parse(["--data-dir", "/cli"], env: ["PUSHBUS_DATA_DIR": "/env"]).string("data-dir") == "/cli")
        #expect(try parse(["--data-dir=/eq"]).string("data-dir") == "/eq")
    }

    @Test func switchesAndArguments() throws {
        let flags = try parse(["call", "--json", "device.get", "{}"])
        #expect(flags.bool("json"))
        #expect(flags.arguments == ["call", "device.get", "{}"])
        #expect(try !parse([]).bool("json"))
    }

    @Test func usageErrors() throws {
        #expect(throws: UsageError.self) { try parse(["--nope"]) }
        #expect(throws: UsageError.self) { try parse(["--data-dir"]) }
        #expect(throws: UsageError.self) { try parse(["--credit", "many"]).int("credit") }
        #expect(throws: UsageError.self) { try parse(["--credit", "0"]).int("credit", in: 1...10) }
        #expect(try parse(["--credit", "5"]).int("credit", in: 1...10) == 5)
    }

    @Test func helpListsFlagsWithTheirEnvironmentNames() throws {
        let usage = try parse([]).usage
        #expect(usage.contains("--data-dir <value>"))
        #expect(usage.contains("[PUSHBUS_DATA_DIR]"))
        #expect(usage.contains("(default: 64)"))
    }
}
