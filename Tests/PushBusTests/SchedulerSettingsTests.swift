import Runtime
import Testing
@testable import SchedulerKit

@Suite("scheduler settings")
struct SchedulerSettingsTests {
    func settings(_ commandLine: [String], environment: [String: String] = [:]) throws -> SchedulerSettings {
        var flags = Flags(program: "scheduler", summary: "", flags: SchedulerSettings.flags)
        try flags.parse(commandLine, environment: environment)
        return try SchedulerSettings(flags)
    }

    @Test func defaultsFollowIOS() throws {
        let defaults = try settings([])
        #expect(defaults.maxPending == 64)
        #expect(defaults.deliveredHistory == 100)
        #expect(defaults.lateness == 3600)
        #expect(defaults.maxSchedulesPerApp == 1000)
    }

    @Test func flagsAndVariablesSetThem() throws {
        let set = try settings(["--local-max-pending", "10", "--local-lateness-s=60"],
                               environment: ["PUSHBUS_LOCAL_DELIVERED_HISTORY": "5", "PUSHBUS_LOCAL_MAX_PENDING": "3",
                                             "PUSHBUS_MAX_SCHEDULES_PER_APP": "20"])
        #expect(set.maxPending == 10, "the command line wins")
        #expect(set.deliveredHistory == 5)
        #expect(set.lateness == 60)
        #expect(set.maxSchedulesPerApp == 20)
    }

    @Test func outOfRangeIsAUsageError() {
        #expect(throws: UsageError.self) { try settings(["--local-max-pending", "0"]) }
        #expect(throws: UsageError.self) { try settings(["--local-lateness-s", "0"]) }
        #expect(throws: UsageError.self) { try settings(["--max-schedules-per-app", "0"]) }
        #expect(throws: UsageError.self) { try settings(["--local-delivered-history", "many"]) }
    }
}
