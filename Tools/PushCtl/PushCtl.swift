import Client
import Credentials
import Foundation
import JSON
import Runtime
import Schema
import ZeroMQ

/// `pushctl`: calls PushBus from the command line. Exit codes: 0 success, 1 the reply carried an
/// error code, 2 no reply, 64 usage error.
struct PushCtl {
    static let summary = """
        PushBus command-line client.

        COMMANDS:
          call <command> '<json>'            any device command, payload as JSON
          status                             live topology: services, shards, workers, credit, queues, rates
          service <name>                     MMI mmi.service: 200, 404 or 501
          probe <service>                    exit 0 when this shard (--shard-index, --shard-count) has a worker
          app create <name>                  create an app (admin): prints app_key and master_secret;
                                             --app-key adopts a key an app already ships
          register                           register a device (--app-key, --platform, --device-id);
                                             --registration-id re-registers it, signed as that device
          get <registration_id>              everything stored about a device
          delete <registration_id>           forget a device in every service
          mobile <registration_id> [number]  bind a mobile number (none unbinds)
          language <registration_id> <lang>  e.g. zh_Hans
          timezone <registration_id> <zone>  an IANA name, e.g. Asia/Shanghai
          voip <registration_id> [token]     register a VoIP token (none unregisters)
        """

    let options: PushCtlOptions
    let client: MajordomoClient

    init(options: PushCtlOptions) throws {
        self.options = options
        client = try MajordomoClient(endpoint: options.endpoint, context: try Context(),
                                     timeoutMilliseconds: options.timeoutMilliseconds, serverKey: options.curveServerKey)
        let signer = Signer(secrets: Secrets.read(directory: options.dataDirectory))
        if let secret = options.masterSecret, let appKey = options.appKey {
            signer.remember(masterSecret: secret, appKey: appKey)
        }
        client.signer = signer
    }

    func run(_ words: [String]) throws -> Int32 {
        guard let verb = words.first else { throw UsageError("give a command (see --help)") }
        let args = Array(words.dropFirst())
        switch (verb, args.count) {
        case ("call", 1), ("call", 2):
            return try call(args[0], payload: args.count == 2 ? args[1] : "{}")
        case ("status", 0):
            return try status()
        case ("service", 1):
            print(try client.serviceStatus(args[0]))
            return 0
        case ("probe", 1):
            // For health checks: this shard of the service has a worker at the gateway.
            let name = options.shard.serviceName(args[0])
            let answer = try client.serviceStatus(name)
            print("\(name) \(answer)")
            return answer == "200" ? 0 : 1
        case ("app", 2) where args[0] == "create":
            var payload: [String: JSONValue] = ["name": .string(args[1])]
            if let key = options.appKey { payload["app_key"] = .string(key) }
            return try call(.appCreate, payload)
        case ("register", 0):
            var payload: [String: JSONValue] = ["app_key": .string(try appKey()), "platform": .string(options.platform)]
            if let registrationID = options.registrationID { payload = try device(registrationID, payload) }
            if let deviceID = options.deviceID { payload["device_id"] = .string(deviceID) }
            return try call(.deviceRegister, payload)
        case ("get", 1):
            return try call(.deviceGet, try device(args[0]))
        case ("delete", 1):
            return try call(.deviceDelete, try device(args[0]))
        case ("mobile", 1), ("mobile", 2):
            return try call(.deviceMobile, try device(args[0], ["mobile": args.count == 2 ? .string(args[1]) : .null]))
        case ("language", 2):
            return try call(.deviceUpdate, try device(args[0], ["language": .string(args[1])]))
        case ("timezone", 2):
            return try call(.deviceUpdate, try device(args[0], ["timezone": .string(args[1])]))
        case ("voip", 1), ("voip", 2):
            return try call(.deviceUpdate, try device(args[0], ["voip_token": args.count == 2 ? .string(args[1]) : .null]))
        default:
            throw UsageError("unknown command or wrong arguments: \(words.joined(separator: " ")) (see --help)")
        }
    }

    /// The live topology (`mmi.topology`): every service and shard, its workers, credit in use,
    /// queue, requests and rate. Exit 1 when a service of the catalog has no workers.
    private func status() throws -> Int32 {
        let reply = try client.request("mmi.topology", [])
        var rows: [[String]] = [["SERVICE", "WORKERS", "CREDIT IN USE", "QUEUE", "REQUESTS", "RATE/s"]]
        if let first = reply.first, case .array(let entries)? = (try? JSONTreeDecoder().decode(JSONValue.self, from: first))?["services"] {
            for entry in entries {
                func number(_ key: String) -> String { entry[key]?.number.map { String(Int($0)) } ?? "-" }
                rows.append([entry["service"]?.string ?? "?", number("workers"), "\(number("credit_in_use"))/\(number("credit"))",
                             number("queue"), number("requests_total"), number("rate")])
            }
        }
        var allUp = true
        for service in Service.allCases where try client.serviceStatus(service.name) != "200" {
            allUp = false
            if !rows.contains(where: { $0[0] == service.name }) { rows.append([service.name, "0", "-", "-", "-", "-"]) }
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
        return allUp ? 0 : 1
    }

    private func appKey() throws -> String {
        guard let key = options.appKey else { throw UsageError("give --app-key (or PUSHBUS_APP_KEY)") }
        return key
    }

    private func device(_ registrationID: String, _ extra: [String: JSONValue] = [:]) throws -> [String: JSONValue] {
        if let secret = options.deviceSecret {
            client.signer?.remember(deviceSecret: secret, registrationID: registrationID)
        }
        var payload: [String: JSONValue] = ["app_key": .string(try appKey()), "registration_id": .string(registrationID)]
        payload.merge(extra) { _, new in new }
        return payload
    }

    private func call(_ command: Command, _ payload: [String: JSONValue]) throws -> Int32 {
        try show(client.call(command.name, payload: WireCodec.encode(payload)))
    }

    private func call(_ command: String, payload: String) throws -> Int32 {
        try show(client.call(command, payload: Data(payload.utf8)))
    }

    private func show(_ reply: Data) -> Int32 {
        let value = (try? JSONTreeDecoder().decode(JSONValue.self, from: reply)) ?? .null
        let code = value["code"]?.number.map { Int($0) } ?? ResultCode.internalError.rawValue
        if options.json {
            print(String(decoding: reply, as: UTF8.self))
        } else if code == 0 {
            ReplyPrinter.lines(value).forEach { print($0) }
        } else {
            FileHandle.standardError.write(Data("error \(code): \(value["message"]?.string ?? "")\n".utf8))
        }
        return code == 0 ? 0 : 1
    }
}
