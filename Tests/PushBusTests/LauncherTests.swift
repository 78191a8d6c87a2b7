import Foundation
import Testing

/// `pushbus --base-port P --data-dir D` followed by `pushctl` calls, as the README shows.
@Suite("launcher and pushctl (integration)")
struct LauncherTests {
    func pushctl(_ arguments: [String], endpoint: String, in directory: String) throws -> (status: Int32, output: String) {
        let run = try RunningProcess(TestPaths.executable("pushctl"), ["--endpoint", endpoint, "--data-dir", "\(directory)/data"] + arguments,
                                     logDirectory: directory)
        let status = run.waitForExit(30) ?? -1
        return (status, run.output)
    }

    @Test func launcherRunsTheStackAndPushctlTalksToIt() throws {
        let base = Ports.freeBase()
        let directory = TestPaths.temporaryDirectory("launcher")
        let data = "\(directory)/data"
        let launcher = try RunningProcess(TestPaths.executable("pushbus"),
                                          ["--base-port", String(base), "--data-dir", data],
                                          logDirectory: directory)
        let deadline = Date().addingTimeInterval(60)
        while !launcher.output.contains("pushbus: ready") && Date() < deadline && launcher.isRunning { usleep(50_000) }
        #expect(launcher.output.contains("pushbus: ready"), "\(launcher.output)")
        let endpoint = "tcp://127.0.0.1:\(base)"

        let app = try pushctl(["--app-key", "demo", "app", "create", "demo"], endpoint: endpoint, in: directory)
        #expect(app.status == 0)
        #expect(app.output.contains("app_key: "))
        let registered = try pushctl(["--json", "--app-key", "demo", "--device-id", "phone-1", "register"],
                                     endpoint: endpoint, in: directory)
        #expect(registered.status == 0)
        let id = try #require(try JSONSerialization.jsonObject(with: Data(registered.output.utf8)) as? [String: Any])["registration_id"] as? String
        let taken = try pushctl(["--app-key", "demo", "--device-id", "phone-1", "register"], endpoint: endpoint, in: directory)
        #expect(taken.status == 1, "an unsigned registration of a registered install is refused")
        #expect(taken.output.contains("error 1008"))
        let id2 = try pushctl(["--json", "--app-key", "demo", "--device-id", "phone-1", "--registration-id", try #require(id), "register"],
                              endpoint: endpoint, in: directory)
        #expect(id2.output.contains(try #require(id)))
        #expect(id2.output.contains(#""is_new":false"#))
        #expect(try pushctl(["--app-key", "demo", "language", id!, "en_US"], endpoint: endpoint, in: directory).status == 0)
        let shown = try pushctl(["--app-key", "demo", "get", id!], endpoint: endpoint, in: directory)
        #expect(shown.output.contains("device.language: en_US"))
        let refused = try pushctl(["--app-key", "demo", "mobile", id!, "not-a-number"], endpoint: endpoint, in: directory)
        #expect(refused.status == 1)
        #expect(refused.output.contains("error 6023"))
        let raw = try pushctl(["call", "device.get", #"{"app_key":"demo","registration_id":"\#(id!)"}"#],
                              endpoint: endpoint, in: directory)
        #expect(raw.status == 0)
        #expect(try pushctl(["bogus"], endpoint: endpoint, in: directory).status == 64)
        #expect(FileManager.default.fileExists(atPath: "\(data)/registration.sqlite"))

        #expect(launcher.terminate(waiting: 15) == 0, "SIGTERM stops every child and exits cleanly")
        #expect(launcher.output.contains("pushbus: stopped"))
        #expect(Ports.isFree(base), "the gateway is gone with the launcher")
    }

    /// `--dry-run` is what Tools/validate-deploy.sh reads: every process, and nothing started.
    @Test func dryRunPrintsEveryProcessAndStartsNone() throws {
        let directory = TestPaths.temporaryDirectory("launcher-dry-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try RunningProcess(TestPaths.executable("pushbus"),
                                     ["--dry-run", "--shards", "channel=2", "--api", "2", "--data-dir", "\(directory)/data"],
                                     logDirectory: directory)
        #expect(run.waitForExit(30) == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let names = lines.compactMap(\.first)
        for name in ["gateway", "registration", "tagging", "badge", "scheduler", "analytics", "push", "apns",
                     "channel/0", "channel/1", "api", "api#2"] {
            #expect(names.contains(name), "\(name) in \(names)")
        }
        let channel = try #require(lines.first { $0.first == "channel/1" })
        #expect(channel[1].hasSuffix("/channel"))
        #expect(channel.contains("--shard-index") && channel.contains("--listen"))
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/data"), "nothing started, no data directory made")
    }

    @Test func aStatelessSenderRunsReplicasAndNeverShards() throws {
        let directory = TestPaths.temporaryDirectory("launcher-replicas")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (flags, message) in [(["--shards", "apns=2"], "apns keeps nothing: run more of it with --replicas apns=N"),
                                 (["--replicas", "tagging=2"], "tagging keeps data: scale it with --shards")] {
            let run = try RunningProcess(TestPaths.executable("pushbus"), flags + ["--data-dir", "\(directory)/data"], logDirectory: directory)
            #expect(run.waitForExit(30) == 64, "\(flags)")
            #expect(run.output.contains(message), "\(run.output)")
        }
        let base = Ports.freeBase()
        let launcher = try RunningProcess(TestPaths.executable("pushbus"),
                                          ["--base-port", String(base), "--data-dir", "\(directory)/data", "--services", "apns",
                                           "--replicas", "apns=2"], logDirectory: directory)
        let deadline = Date().addingTimeInterval(60)
        while !launcher.output.contains("pushbus: ready") && Date() < deadline && launcher.isRunning { usleep(50_000) }
        #expect(launcher.output.contains("pushbus: ready"), "\(launcher.output)")
        let status = try pushctl(["--json", "status"], endpoint: "tcp://127.0.0.1:\(base)", in: directory)
        #expect(status.output.contains("apns"), "\(status.output)")
        #expect(launcher.output.contains("apns#2"), "the second replica runs under its own name in the log")
        launcher.terminate()
    }

    @Test func theEventBusStaysOnLoopbackWhenRequestsAreOpenToTheNetwork() throws {
        let base = Ports.freeBase()
        let directory = TestPaths.temporaryDirectory("launcher")
        let launcher = try RunningProcess(TestPaths.executable("pushbus"),
                                          ["--base-port", String(base), "--host", "0.0.0.0", "--services", "registration",
                                           "--data-dir", "\(directory)/data"],
                                          logDirectory: directory)
        defer { launcher.terminate() }
        let deadline = Date().addingTimeInterval(60)
        while !launcher.output.contains("pushbus: ready") && Date() < deadline && launcher.isRunning { usleep(50_000) }
        #expect(launcher.output.contains("endpoint=tcp://0.0.0.0:\(base)"), "\(launcher.output)")
        #expect(launcher.output.contains("events.in=tcp://127.0.0.1:\(base + 2)"))
        #expect(launcher.output.contains("events.out=tcp://127.0.0.1:\(base + 3)"))
    }

    @Test func launcherRestartsACrashedChild() throws {
        let base = Ports.freeBase()
        let directory = TestPaths.temporaryDirectory("launcher")
        let launcher = try RunningProcess(TestPaths.executable("pushbus"),
                                          ["--base-port", String(base), "--data-dir", "\(directory)/data"],
                                          logDirectory: directory)
        defer { launcher.terminate() }
        let deadline = Date().addingTimeInterval(60)
        while !launcher.output.contains("pushbus: ready") && Date() < deadline { usleep(50_000) }
        let pid = try #require(childPID(named: "registration", parent: launcher.process.processIdentifier))
        kill(pid, SIGKILL)
        let restartDeadline = Date().addingTimeInterval(30)
        var restarted: Int32?
        while restarted == nil && Date() < restartDeadline {
            usleep(100_000)
            if let now = childPID(named: "registration", parent: launcher.process.processIdentifier), now != pid { restarted = now }
        }
        #expect(restarted != nil, "\(launcher.output)")
        #expect(launcher.output.contains("registration exited"))
    }

    @Test func anOrphanedServiceStopsByItself() throws {
        let directory = TestPaths.temporaryDirectory("orphan")
        // The shell starts the service with itself as the named parent, prints its pid and exits.
        let script = "\(TestPaths.executable("registration")) --data-dir \(directory) --endpoint tcp://127.0.0.1:\(Ports.free()) "
            + "--events-in tcp://127.0.0.1:\(Ports.free()) --parent-pid $$ >/dev/null 2>&1 & echo $!"
        let shell = try RunningProcess("/bin/sh", ["-c", script], logDirectory: directory)
        #expect(shell.waitForExit(10) == 0)
        let pid = try #require(Int32(shell.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let deadline = Date().addingTimeInterval(10)
        while isAlive(pid) && Date() < deadline { usleep(50_000) }
        #expect(!isAlive(pid), "the orphan stopped when its parent went away")
    }

    /// Running, and not a zombie waiting for whoever adopted it to reap it.
    func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    /// The pid of a direct child process whose command name is `name`, from /proc.
    func childPID(named name: String, parent: Int32) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8) else { continue }
            // stat: pid (comm) state ppid …
            guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let comm = stat[stat.index(after: open)..<close]
            let rest = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            if comm == name, rest.count > 1, Int32(rest[1]) == parent { return pid }
        }
        return nil
    }
}
