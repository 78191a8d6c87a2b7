import Foundation
import Runtime
import ZeroMQ

// The ceiling PushBus is measured against: raw ZeroMQ with no PushBus code in the path.
//  - two-hop echo: client DEALERs → ROUTER/DEALER proxy (zmq_proxy, its own process) → echo
//    worker (its own process), as many in flight as the window allows;
//  - synchronous round trip: REQ → REP directly, one at a time.

/// From flags; each property's initial value is its flag's default.
struct Settings: Options {
    var role = "driver"
    var front: String?
    var back: String?
    var messages = 1_000_000
    var window = 512
    var connections = 4
    var roundTrips = 20_000
    var size = 120
    var json = false

    init() {}

    static let options: [Option<Settings>] = [
        .string("role", \.role, help: "driver (default), proxy or echo; the driver starts the others."),
        .optional("front", \.front, help: "proxy/echo: frontend endpoint."),
        .optional("back", \.back, help: "proxy/echo: backend endpoint."),
        .int("messages", \.messages, in: 1...100_000_000, help: "driver: messages for the throughput run."),
        .int("window", \.window, in: 1...1_000_000, help: "driver: messages in flight."),
        .int("connections", \.connections, in: 1...256, help: "driver: client connections."),
        .int("round-trips", \.roundTrips, in: 1...10_000_000, help: "driver: REQ/REP round trips."),
        .int("size", \.size, in: 1...1_000_000, help: "driver: payload bytes."),
        .switch("json", \.json, help: "driver: print the results as JSON."),
    ]
}

let settings = Settings.parseOrExit(program: "bench-zeromq", summary: "Raw ZeroMQ ceilings: two-hop echo throughput and REQ/REP round trip.")
let context = try Context()

switch settings.role {
case "proxy":
    let front = try Socket(context, .router)
    try front.setHighWaterMarks(send: 0, receive: 0)
    try front.bind(settings.front ?? "")
    let back = try Socket(context, .dealer)
    try back.setHighWaterMarks(send: 0, receive: 0)
    try back.bind(settings.back ?? "")
    proxy(frontend: front, backend: back)
    exit(0)
case "echo":
    let socket = try Socket(context, settings.front == nil ? .dealer : .rep)
    try socket.setHighWaterMarks(send: 0, receive: 0)
    if let front = settings.front { try socket.bind(front) } else { try socket.connect(settings.back ?? "") }
    while let message = try socket.receive() { try socket.send(message) }
    exit(0)
default:
    break
}

func freePort() -> Int {
    let socket = try! Socket.router(context, bind: "tcp://127.0.0.1:*")
    let port = Int(socket.lastEndpoint.split(separator: ":").last!)!
    socket.close()
    return port
}

func spawn(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    process.arguments = arguments
    try process.run()
    return process
}

let messages = settings.messages
let window = settings.window
let connections = settings.connections
let roundTrips = settings.roundTrips
let payload = Data(repeating: 0x61, count: settings.size)

// Two-hop echo.
let front = "tcp://127.0.0.1:\(freePort())"
let back = "tcp://127.0.0.1:\(freePort())"
let proxyProcess = try spawn(["--role", "proxy", "--front", front, "--back", back])
let echoProcess = try spawn(["--role", "echo", "--back", back])
defer {
    proxyProcess.terminate()
    echoProcess.terminate()
}
let clients = try (0..<connections).map { _ -> Socket in
    let socket = try Socket(context, .dealer)
    try socket.setHighWaterMarks(send: 0, receive: 0)
    try socket.connect(front)
    return socket
}
// Wait until the path answers, then measure.
try clients[0].send(Message([Data(), payload]))
_ = try clients[0].receive()
var poller = Poller(clients)
var sent = 0
var received = 0
var inFlight = 0
let started = Clock.microseconds()
while received < messages {
    while sent < messages && inFlight < window {
        try clients[sent % connections].send(Message([Data(), payload]))
        sent += 1
        inFlight += 1
    }
    for socket in try poller.poll(timeout: 1000) {
        while try socket.receive(wait: false) != nil {
            received += 1
            inFlight -= 1
        }
    }
}
let echoSeconds = Double(Clock.microseconds() - started) / 1_000_000
let echoRate = Double(messages) / echoSeconds

// Synchronous REQ/REP round trip, direct.
let repEndpoint = "tcp://127.0.0.1:\(freePort())"
let repProcess = try spawn(["--role", "echo", "--front", repEndpoint])
defer { repProcess.terminate() }
let req = try Socket.req(context, connect: repEndpoint)
try req.send(Message([payload]))
_ = try req.receive()
var samples: [UInt32] = []
samples.reserveCapacity(roundTrips)
for _ in 0..<roundTrips {
    let before = Clock.microseconds()
    try req.send(Message([payload]))
    _ = try req.receive()
    samples.append(UInt32(Clock.microseconds() - before))
}
samples.sort()
let p50 = Double(samples[samples.count / 2]) / 1000
let p99 = Double(samples[min(samples.count - 1, samples.count * 99 / 100)]) / 1000

if settings.json {
    print(#"{"two_hop_echo_per_second":\#(Int(echoRate)),"req_rep_p50_ms":\#(p50),"req_rep_p99_ms":\#(p99)}"#)
} else {
    print("two-hop echo (client → zmq_proxy → echo, window \(window), \(connections) connections): \(Int(echoRate)) messages/s")
    print(String(format: "REQ/REP round trip (direct): p50 %.3f ms, p99 %.3f ms", p50, p99))
}
for process in [proxyProcess, echoProcess, repProcess] { process.terminate() }
exit(0)
