import Foundation
import Runtime
import Testing

/// Every executable allocates through tcmalloc (`Allocator`): linked ahead of libc, so that every
/// `malloc` and `free` in the process, the Swift runtime's and the C libraries' too, is its.
@Suite("allocator")
struct AllocatorTests {
    @Test func thisProcessAllocatesThroughTCMalloc() {
        #expect(Allocator.isTCMalloc)
        #expect(Allocator.version.hasPrefix("gperftools"), "\(Allocator.version)")
    }

    /// The dynamic linker's own account (`LD_DEBUG=bindings`) of where each library's `malloc` and
    /// `free` bind, for every executable of the build: all to tcmalloc, none to glibc.
    @Test(arguments: ["gateway", "registration", "tagging", "analytics", "scheduler", "badge", "push", "apns", "api",
                      "channel", "pushbus", "pushbus-replay", "pushctl", "pushbus-backup", "pushbus-fuzz", "h2probe"])
    func everyExecutableAllocatesThroughTCMalloc(_ program: String) throws {
        let directory = TestPaths.temporaryDirectory("allocator")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try RunningProcess("/usr/bin/env", ["LD_DEBUG=bindings", TestPaths.executable(program), "--help"],
                                     logDirectory: directory)
        #expect(run.waitForExit(30) == 0)
        // "binding file <library> [0] to <library> [0]: normal symbol `malloc' [GLIBC_2.2.5]"
        let bindings = run.output.split(separator: "\n").filter { $0.contains("symbol `malloc' [") || $0.contains("symbol `free' [") }
        #expect(!bindings.isEmpty, "no binding of malloc or free reported")
        // The library each binds to (after " to "), not the one that calls.
        let elsewhere = bindings.filter { line in
            let target = line.range(of: " to ").map { line[$0.upperBound...].prefix { $0 != " " } } ?? ""
            return !target.contains("/libtcmalloc_minimal.so")
        }
        #expect(elsewhere.isEmpty, "\(elsewhere.prefix(3))")
    }
}
