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

FLAGS:
  --server <url>     the device edge: https://host:port (api, base port + 4) [PUSHBUS_DEVICE_SERVER]
  --channel <url>    the device channel: wss://host:port/v1/channel [PUSHBUS_DEVICE_CHANNEL]
  --app-key <key>    the app's app_key [PUSHBUS_DEVICE_APP_KEY]
  --state <dir>      where this phone keeps its registration (a 0600 file) [PUSHBUS_DEVICE_STATE]
  --ca-file <pem>    certificates to trust instead of the system's [PUSHBUS_DEVICE_CA_FILE]
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
for name in ["server", "channel", "app-key", "state", "ca-file", "apns-token"] {
    flags[name] = environment["PUSHBUS_DEVICE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")]
}
var words: [String] = []
while !arguments.isEmpty {
    let word = arguments.removeFirst()
    if word.hasPrefix("--") {
        let name = String(word.dropFirst(2))
        guard flags.keys.contains(name) || ["server", "channel", "app-key", "state", "ca-file", "apns-token"].contains(name) else {
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
default: fail("unknown command \(words.joined(separator: " ")) (see --help)")
}
done.wait()
exit(exitCode)
