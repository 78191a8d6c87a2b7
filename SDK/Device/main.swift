import Foundation
import PushBusSDK

// pushbus-device: a simulated phone on the device SDK. Each command prints one JSON object per line
// and exits 0 only when its code was 0.

let usage = """
pushbus-device: a simulated phone on PushBusSDK (registers, sets tags, alias and badge over HTTPS).

USAGE: pushbus-device --server URL --app-key KEY --state DIR [--ca-file PEM] [--channel URL] <command>

COMMANDS:
  register [--apns-token HEX]        register (signed again after the first time: same registration ID)
  tags add|set|delete TAG...         change the device's tags
  tags clean | tags get              remove all tags / list them
  tags valid TAG                     whether the device has TAG
  alias set NAME | alias get | alias delete
  badge set N | badge reset          the server-kept badge
  local add ID SECONDS TEXT          a local notification SECONDS from now (the scheduler fires it)
  local remove [ID...] | local find [ID...]
  page enter|leave NAME              the app's page (in-app messages wait for theirs)
  channel subscribe|unsubscribe|status NAME
  listen [--count N] [--timeout S]   hold the live channel; print each message (acknowledged once printed)

FLAGS:
  --server <url>     the device edge: https://host:port (api, base port + 4) [PUSHBUS_DEVICE_SERVER]
  --channel <url>    the device channel: wss://host:port/v1/channel [PUSHBUS_DEVICE_CHANNEL]
  --app-key <key>    the app's app_key [PUSHBUS_DEVICE_APP_KEY]
  --state <dir>      where this phone keeps its registration (a 0600 file) [PUSHBUS_DEVICE_STATE]
  --ca-file <pem>    certificates to trust instead of the system's [PUSHBUS_DEVICE_CA_FILE]
  --count <n>        listen: stop after N messages (default 1)
  --timeout <s>      listen: stop after S seconds, exit 1 if fewer than N came (default 30)
  --help             show this help and exit
"""

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pushbus-device: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.isEmpty {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}
let environment = ProcessInfo.processInfo.environment
var flags: [String: String] = [:]
let flagNames = ["server", "channel", "app-key", "state", "ca-file", "apns-token", "count", "timeout"]
for name in flagNames {
    flags[name] = environment["PUSHBUS_DEVICE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")]
}
var words: [String] = []
while !arguments.isEmpty {
    let word = arguments.removeFirst()
    if word.hasPrefix("--") {
        let name = String(word.dropFirst(2))
        guard flagNames.contains(name) else {
            fail("unknown flag \(word) (see --help)")
        }
        guard !arguments.isEmpty else { fail("\(word) needs a value") }
        flags[name] = arguments.removeFirst()
    } else {
        words.append(word)
    }
}
guard let server = flags["server"].flatMap(URL.init(string:)) else { fail("--server is required (see --help)") }
guard let appKey = flags["app-key"] else { fail("--app-key is required") }
guard let stateDirectory = flags["state"] else { fail("--state is required") }

let configuration = PushBusConfiguration(appKey: appKey, server: server, channelURL: flags["channel"].flatMap(URL.init(string:)),
                                         stateDirectory: URL(fileURLWithPath: stateDirectory), caFile: flags["ca-file"])
let client: PushBusClient
do { client = try PushBusClient(configuration: configuration) } catch { fail("\(error)") }
client.callbackQueue = DispatchQueue(label: "pushbus-device.callbacks")
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var exitCode: Int32 = 1

/// Prints `fields` as one JSON line and remembers whether `code` was 0.
func answer(_ fields: [String: Any]) {
    let code = fields["code"] as? Int ?? -1
    if let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) {
        print(String(decoding: data, as: UTF8.self))
    }
    exitCode = code == 0 ? 0 : 1
    done.signal()
}

func tagsAnswer(_ code: Int, _ tags: Set<String>?, _ seq: Int) {
    answer(["code": code, "tags": tags.map { Array($0).sorted() } as Any? ?? NSNull()])
}

func errorAnswer(_ error: PushBusError?) { answer(["code": error?.code ?? 0, "message": error?.message ?? ""]) }

switch (words.first, words.dropFirst().first) {
case ("register", _):
    let token = flags["apns-token"].flatMap { hex -> Data? in
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex),
              let byte = UInt8(hex[index..<next], radix: 16) {
            bytes.append(byte)
            index = next
        }
        return bytes.count * 2 == hex.count ? Data(bytes) : nil
    }
    client.register(apnsToken: token) { code, id in answer(["code": code, "registration_id": id as Any? ?? NSNull()]) }
case ("tags", "add"): client.addTags(Set(words.dropFirst(2)), completion: tagsAnswer, seq: 1)
case ("tags", "set"): client.setTags(Set(words.dropFirst(2)), completion: tagsAnswer, seq: 1)
case ("tags", "delete"): client.deleteTags(Set(words.dropFirst(2)), completion: tagsAnswer, seq: 1)
case ("tags", "clean"): client.cleanTags(tagsAnswer, seq: 1)
case ("tags", "get"): client.getAllTags(tagsAnswer, seq: 1)
case ("tags", "valid"):
    client.validTag(words.dropFirst(2).first ?? "", completion: { code, _, _, isBind in answer(["code": code, "is_bind": isBind]) }, seq: 1)
case ("alias", "set"):
    client.setAlias(words.dropFirst(2).first ?? "", completion: { code, alias, _ in answer(["code": code, "alias": alias as Any? ?? NSNull()]) }, seq: 1)
case ("alias", "get"): client.getAlias({ code, alias, _ in answer(["code": code, "alias": alias as Any? ?? NSNull()]) }, seq: 1)
case ("alias", "delete"): client.deleteAlias({ code, _, _ in answer(["code": code]) }, seq: 1)
case ("badge", "set"):
    guard let value = words.dropFirst(2).first.flatMap({ Int($0) }) else { fail("badge set takes a number") }
    client.setBadge(value, completion: errorAnswer)
case ("badge", "reset"): client.resetBadge(completion: errorAnswer)
case ("local", "add"):
    let rest = Array(words.dropFirst(2))
    guard rest.count >= 3, let seconds = Double(rest[1]) else { fail("local add takes ID SECONDS TEXT") }
    client.addNotification(NotificationRequest(requestIdentifier: rest[0], content: NotificationContent(body: rest[2...].joined(separator: " ")),
                                               trigger: NotificationTrigger(.timeInterval(seconds)), completionHandler: { answer($0) }))
case ("local", "remove"):
    let ids = Array(words.dropFirst(2))
    client.removeNotification(NotificationIdentifier(identifiers: ids)) { code in answer(["code": code]) }
case ("local", "find"):
    let ids = Array(words.dropFirst(2))
    client.findNotification(NotificationIdentifier(identifiers: ids, findCompletionHandler: { requests in answer(["code": 0, "requests": requests]) }))
case ("page", "enter"), ("page", "leave"):
    guard let page = words.dropFirst(2).first else { fail("page enter|leave takes a page name") }
    if words[1] == "enter" { client.pageEnterTo(page) } else { client.pageLeave(page) }
    // Pages are fire-and-forget in the seed: wait for the command to have gone by asking something after it.
    client.getAlias({ code, _, _ in answer(["code": code]) }, seq: 0)
case ("channel", "subscribe"):
    guard let name = words.dropFirst(2).first else { fail("channel subscribe takes a channel") }
    client.registerForChannel(name) { code in answer(["code": code, "channel": name]) }
case ("channel", "unsubscribe"):
    guard let name = words.dropFirst(2).first else { fail("channel unsubscribe takes a channel") }
    client.unregisterForChannel(name) { code in answer(["code": code, "channel": name]) }
case ("channel", "status"):
    guard let name = words.dropFirst(2).first else { fail("channel status takes a channel") }
    client.channelStatus(name) { code, subscribed in answer(["code": code, "channel": name, "subscribed": subscribed]) }
case ("listen", _):
    guard configuration.channelURL != nil else { fail("listen needs --channel") }
    let count = flags["count"].flatMap { Int($0) } ?? 1
    let timeout = flags["timeout"].flatMap { Double($0) } ?? 30
    let seen = DispatchSemaphore(value: 0)
    client.onMessage = { message in
        if let data = try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]) { print(String(decoding: data, as: UTF8.self)) }
        fflush(stdout)
        seen.signal()
    }
    client.connectChannel()
    var got = 0
    let end = Date().addingTimeInterval(timeout)
    while got < count, seen.wait(timeout: .now() + max(0, end.timeIntervalSinceNow)) == .success { got += 1 }
    // The last message's acknowledgement goes once its handler returned: give it a moment.
    usleep(300_000)
    client.disconnectChannel()
    exit(got >= count ? 0 : 1)
default: fail("unknown command \(words.joined(separator: " ")) (see --help)")
}
done.wait()
exit(exitCode)
