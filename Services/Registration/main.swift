import Credentials
import RegistrationKit
import Worker

ServiceMain.run(.registration, summary: "PushBus registration service: devices, registration IDs, tokens, mobile number, language.") { options, _ in
    try RegistrationHandler(path: try options.databasePath("registration"), secrets: try Secrets.load(directory: options.dataDirectory),
                            publisher: options.shard.serviceName("registration"), shard: options.shard)
}
