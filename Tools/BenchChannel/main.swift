import CMicroHTTPD  // epoll, through the shim's includes (Glibc's module leaves it out)
import Foundation
import Runtime

// The device side of the channel benchmark (Tools/bench-channel.sh): holds a slice of the devices'
// WebSocket connections open on one epoll loop, prints `ready <n>` once every one is welcomed, then
// records when each receives its first message (acknowledging it), and prints one JSON line: the
// receipt times (Unix seconds) and this process's CPU time. Several run side by side, each within
// its own open-file limit.
//
// Usage: bench-channel <port> <app_key> <devices file: "registration_id device_secret" lines> <from> <count> <wait seconds>

let arguments = CommandLine.arguments
guard arguments.count == 7, let port = UInt16(arguments[1]), let from = Int(arguments[4]), let count = Int(arguments[5]),
      let wait = Double(arguments[6]) else {
    FileHandle.standardError.write(Data("usage: bench-channel <port> <app_key> <devices file> <from> <count> <wait seconds>\n".utf8))
    exit(64)
}
OpenFileLimit.raiseToHardLimit()

let devices = try String(contentsOfFile: arguments[3], encoding: .utf8).split(separator: "\n").dropFirst(from).prefix(count)
    .map { line -> (String, String) in
        let fields = line.split(separator: " ")
        return (String(fields[0]), String(fields[1]))
    }
let poller = epoll_create1(0)
var connections: [Int32: LoadConnection] = [:]
var pending = devices[...]
let handshakesAtOnce = 256
var inFlight = 0
var ready = 0, failed = 0, received = 0
var announced = false
let started = Date().timeIntervalSince1970
var readyAt = Double.infinity
let now = { Date().timeIntervalSince1970 }
var events = [epoll_event](repeating: epoll_event(), count: 1024)

func watch(_ connection: LoadConnection) {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLET.rawValue
    event.data.fd = connection.fd
    epoll_ctl(poller, EPOLL_CTL_ADD, connection.fd, &event)
}

while true {
    while inFlight < handshakesAtOnce, let (id, secret) = pending.first {
        pending = pending.dropFirst()
        let source = UInt8(2 + (from + devices.count - pending.count) % 32)
        guard let connection = LoadConnection(port: port, source: source, appKey: arguments[2], registrationID: id, deviceSecret: secret) else {
            failed += 1
            continue
        }
        connections[connection.fd] = connection
        watch(connection)
        inFlight += 1
    }
    if !announced && ready + failed == devices.count {
        announced = true
        readyAt = now()
        FileHandle.standardOutput.write(Data("ready \(ready) failed \(failed) in \(String(format: "%.1f", readyAt - started)) s\n".utf8))
    }
    if announced && (received + failed >= devices.count || now() - readyAt > wait) { break }
    let found = epoll_wait(poller, &events, Int32(events.count), 200)
    for index in 0..<max(0, Int(found)) {
        guard let connection = connections[events[index].data.fd] else { continue }
        let before = connection.stage
        if events[index].events & EPOLLOUT.rawValue != 0 { connection.connected() }
        if events[index].events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { connection.readable(now: now) }
        switch (before, connection.stage) {
        case (.welcoming, .ready), (.handshaking, .ready), (.connecting, .ready):
            ready += 1
            inFlight -= 1
        case (.ready, .received): received += 1
        case (let old, .failed) where old != .failed:
            failed += 1
            if old != .ready { inFlight -= 1 }
        default: break
        }
    }
}
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
let times = connections.values.compactMap(\.receivedAt)
let summary: [String: Any] = ["ready": ready, "failed": failed, "received": received, "cpu_seconds": cpu, "times": times]
print(String(decoding: try JSONSerialization.data(withJSONObject: summary), as: UTF8.self))
