import Client
import Foundation
import ZeroMQ

/// A child process of the benchmark (the gateway or a scheduler), stopped when released.
final class ServiceProcess {
    let process = Process()
    let started: Date

    init(_ executable: String, _ arguments: [String], log: String) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = process.standardError
        started = Date()
        try process.run()
    }

    deinit { stop() }

    /// Resident and peak resident memory, in MiB, from /proc.
    var memory: (rss: Double, peak: Double) {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        func kibibytes(_ field: String) -> Double {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
            return Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return (kibibytes("VmRSS") / 1024, kibibytes("VmHWM") / 1024)
    }

    /// SIGTERM and wait for the exit.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Polls `mmi.service` until `service` answers `status`; returns the seconds since this process started.
    func wait(for service: String, status: String = "200", client: MajordomoClient, within seconds: Double = 600) throws -> Double {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? client.serviceStatus(service)) == status { return Date().timeIntervalSince(started) }
            usleep(5_000)
        }
        throw BenchError("\(service) never answered \(status)")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port on 127.0.0.1 nobody is bound to now, below the ephemeral range.
func freePort() -> Int {
    while true {
        let port = Int.random(in: 20_000...32_000)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        close(fd)
        if bound == 0 { return port }
    }
}
