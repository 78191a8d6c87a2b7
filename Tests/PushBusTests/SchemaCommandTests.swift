import Foundation
import Testing
import Schema

/// The command table routes every command of reference/commands.md to the service of its section.
@Suite("Command table")
struct SchemaCommandTests {
    /// The catalog, section by section, and PushBus's own reads beside it (the console's: `app.list`,
    /// `badge.values`, `push.list`, `push.device_history`; docs/services/api.md).
    static let catalog: [Service: [String]] = [
        .registration: [
            "app.create", "app.list", "device.register", "device.get", "device.update", "device.mobile",
            "device.live_activity_start_token", "device.live_activity_token", "device.delete",
        ],
        .tagging: [
            "tags.add", "tags.set", "tags.delete", "tags.clean", "tags.get", "tags.valid", "alias.set",
            "alias.delete", "alias.get", "channel.subscribe", "channel.unsubscribe", "channel.status",
            "channel.reset", "channel.sync", "audience.resolve", "tags.list", "tags.count", "alias.lookup",
        ],
        .badge: ["badge.set", "badge.reset", "badge.get", "badge.apply", "badge.values"],
        .scheduler: ["local.add", "local.remove", "local.find", "location.report",
                     "schedule.create", "schedule.get", "schedule.update", "schedule.delete", "schedule.list", "schedule.msg_ids"],
        .analytics: [
            "ma.start", "ma.identify", "ma.contact", "ma.events", "ma.property", "ma.channel_value", "ma.profile",
            "ma.erase", "stats.report", "stats.message", "stats.events",
        ],
        .push: ["apns.credentials", "push.send", "push.validate", "push.status", "push.device_status", "push.withdraw",
                "push.list", "push.device_history"],
        // devices.status is in the catalog's push section; page.enter/page.leave are the issue's (the
        // request-path form of the channel's page reports).
        .channel: ["devices.status", "page.enter", "page.leave"],
    ]

    /// PushBus's internal commands, outside the public catalog: the sending path's services among themselves.
    static let internalCommands: [Service: [String]] = [
        .registration: ["device.tokens", "device.tokens_invalid"],
        .apns: ["apns.send"],
        .channel: ["live.deliver", "live.attach", "live.detach", "live.ack", "live.more", "live.push", "live.reset"],
    ]

    @Test("every catalog command exists and belongs to its section's service", arguments: Service.allCases)
    func section(_ service: Service) {
        let names = (Self.catalog[service] ?? []) + (Self.internalCommands[service] ?? [])
        #expect(!names.isEmpty)
        for name in names {
            let command = Command(rawValue: name)
            #expect(command != nil, "\(name) is missing from Command")
            #expect(command?.service == service, "\(name) is routed to \(String(describing: command?.service))")
        }
        #expect(Command.owned(by: service).map(\.name) == names)
    }

    @Test("the table has no command the catalog lacks, and names are unique")
    func unique() {
        let names = Command.allCases.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(names) == Set(Self.catalog.values.joined()).union(Self.internalCommands.values.joined()))
        #expect(Set(Command.allCases.filter(\.isInternal).map(\.name)) == Set(Self.internalCommands.values.joined()))
        #expect(Service.allCases.map { Command.owned(by: $0).count }.reduce(0, +) == Command.allCases.count)
    }

    @Test("a command's wire name is its raw value and survives the codec")
    func wireName() throws {
        struct Named: Codable, Equatable { var command: Command }
        for command in Command.allCases {
            #expect(command.name == command.rawValue)
            #expect(try SchemaFixture.roundTrip(Named(command: command)) == Named(command: command))
        }
        #expect(SchemaFixture.json(Named(command: .liveActivityToken))
                == #"{"command":"device.live_activity_token"}"#)
        #expect(SchemaFixture.error(Named.self, #"{"command":"tags.explode"}"#)?.code == .invalidRequest)
    }

    @Test("a service's MDP name is its raw value")
    func serviceNames() {
        for service in Service.allCases { #expect(service.name == service.rawValue) }
    }
}
