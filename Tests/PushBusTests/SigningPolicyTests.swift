import Client
import Credentials
import Foundation
import Schema
import Signing
import Testing
@testable import GatewayKit

/// Who may sign which command, as a table; and the gateway and the client both going by it.
@Suite("signing policy")
struct SigningPolicyTests {
    typealias Role = SigningPolicy.Role

    /// Every command of the catalog, and `nil` for internal ones (`events.fetch`): who may sign it,
    /// the client's choice first, and how its payload names a device in `registration_id`.
    static let table: [(command: Command?, signers: [Role], device: SigningPolicy.DeviceNaming)] = [
        (nil, [.service, .admin], .optional),
        (.appCreate, [.admin], .optional),
        (.appList, [.admin], .optional),
        // A re-registration; a first one goes unsigned.
        (.deviceRegister, [.device, .app], .optional),
        (.deviceGet, [.device, .app], .required),
        (.deviceUpdate, [.device, .app], .required),
        (.deviceMobile, [.device, .app], .required),
        (.liveActivityStartToken, [.device, .app], .required),
        (.liveActivityToken, [.device, .app], .required),
        (.deviceDelete, [.device, .app], .required),
        (.tagsAdd, [.device, .app], .required),
        (.tagsSet, [.device, .app], .required),
        (.tagsDelete, [.device, .app], .required),
        (.tagsClean, [.device, .app], .required),
        (.tagsGet, [.device, .app], .required),
        (.tagsValid, [.device, .app], .required),
        (.aliasSet, [.device, .app], .required),
        (.aliasDelete, [.device, .app], .required),
        (.aliasGet, [.device, .app], .required),
        (.channelSubscribe, [.device, .app], .required),
        (.channelUnsubscribe, [.device, .app], .required),
        (.channelStatus, [.device, .app], .required),
        (.channelReset, [.device, .app], .required),
        (.channelSync, [.device, .app], .required),
        (.audienceResolve, [.app], .filter),
        (.tagsList, [.app], .filter),
        (.tagsCount, [.app], .filter),
        (.aliasLookup, [.app], .filter),
        (.badgeSet, [.device], .required),
        (.badgeReset, [.device], .required),
        (.badgeGet, [.device], .required),
        (.badgeApply, [.app], .filter),
        (.badgeValues, [.app], .filter),
        (.localAdd, [.device], .required),
        (.localRemove, [.device], .required),
        (.localFind, [.device], .required),
        (.locationReport, [.device], .required),
        // MA commands name an EUID; a device that signs one names itself too.
        (.maStart, [.device, .app], .optional),
        (.maIdentify, [.device, .app], .optional),
        (.maContact, [.device, .app], .optional),
        (.maEvents, [.device, .app], .optional),
        (.maProperty, [.device, .app], .optional),
        (.maChannelValue, [.device, .app], .optional),
        (.maProfile, [.device, .app], .optional),
        (.maErase, [.app], .optional),
        (.statsReport, [.device], .optional),
        (.statsMessage, [.app], .filter),
        (.statsEvents, [.app], .filter),
        (.apnsCredentials, [.app, .admin], .filter),
        (.pushSend, [.app], .filter),
        (.pushValidate, [.app], .filter),
        (.pushStatus, [.app], .filter),
        (.pushDeviceStatus, [.app], .filter),
        (.pushWithdraw, [.app], .filter),
        (.pushList, [.app], .filter),
        (.pushDeviceHistory, [.app], .filter),
        (.scheduleCreate, [.app], .filter),
        (.scheduleGet, [.app], .filter),
        (.scheduleUpdate, [.app], .filter),
        (.scheduleDelete, [.app], .filter),
        (.scheduleList, [.app], .filter),
        (.scheduleMsgIDs, [.app], .filter),
        (.deviceTokens, [.service, .admin], .filter),
        (.deviceTokensInvalid, [.service, .admin], .filter),
        (.apnsSend, [.service, .admin], .filter),
        // the device channel: the app asks who is online; the device reports its pages; the rest is
        // between PushBus's own services.
        (.devicesStatus, [.app], .filter),
        (.pageEnter, [.device], .required),
        (.pageLeave, [.device], .required),
        (.liveDeliver, [.service, .admin], .filter),
        (.liveAttach, [.service, .admin], .filter),
        (.liveDetach, [.service, .admin], .filter),
        (.liveAck, [.service, .admin], .filter),
        (.liveMore, [.service, .admin], .filter),
        (.livePush, [.service, .admin], .filter),
        (.liveReset, [.service, .admin], .filter),
    ]

    let secrets = Secrets(admin: String(repeating: "a", count: 64), serverKey: String(repeating: "5", count: 64))
    let now = Int64(Date().timeIntervalSince1970)

    /// The principal of `role` and its key: device `r1` and app `ak`.
    func principal(_ role: Role) -> (Principal, String) {
        switch role {
        case .device: (.device(registrationID: "r1"), secrets.deviceSecret(appKey: "ak", registrationID: "r1"))
        case .app: (.app(appKey: "ak"), secrets.masterSecret(appKey: "ak"))
        case .admin: (.admin, secrets.admin)
        case .service: (.service(name: "tagging"), secrets.serviceSecret("tagging"))
        }
    }

    /// What the gateway reads of a payload with app `ak`, naming device `r1` unless the command's
    /// `registration_id` is a filter.
    func claims(_ command: Command?) -> PayloadKeys {
        var claims = PayloadKeys()
        claims.appKey = "ak"
        claims.ts = now
        if SigningPolicy.rule(for: command).device != .filter { claims.registrationID = "r1" }
        return claims
    }

    func name(_ command: Command?) -> String { command?.name ?? "events.fetch" }

    @Test func theTableCoversTheCatalog() {
        #expect(Set(Self.table.compactMap(\.command)) == Set(Command.allCases))
        #expect(Self.table.count == Command.allCases.count + 1)
    }

    @Test func everyCommandHasTheRuleOfTheTable() {
        for row in Self.table {
            let rule = SigningPolicy.rule(for: row.command)
            #expect(rule.signers == row.signers, "\(name(row.command))")
            #expect(rule.device == row.device, "\(name(row.command))")
            #expect(rule.acceptsUnsigned == (row.command == .deviceRegister), "only device.register may arrive unsigned")
        }
        let register = SigningPolicy.rule(for: .deviceRegister)
        #expect(register.goesUnsigned(namingDevice: false) && !register.goesUnsigned(namingDevice: true))
        #expect(!SigningPolicy.rule(for: .tagsAdd).goesUnsigned(namingDevice: false))
    }

    @Test func theGatewayAdmitsTheTablesSignersAndNobodyElse() {
        var authenticator = Authenticator(secrets: secrets)
        for row in Self.table {
            for role in Role.allCases {
                let payload = Data(#"{"nonce":"\#(name(row.command))-\#(role)"}"#.utf8)
                let (principal, key) = principal(role)
                let proof = Proof(principal: principal, key: key, command: name(row.command), payload: payload)
                let result = authenticator.check(command: name(row.command), known: row.command, body: [Data(name(row.command).utf8), payload, proof.frame],
                                                 claims: claims(row.command), now: now)
                switch result {
                case .success(let admission):
                    #expect(row.signers.contains(role) && admission.principal == principal, "\(role) signed \(name(row.command))")
                case .failure(let refusal):
                    #expect(!row.signers.contains(role), "\(role) refused \(name(row.command)): \(refusal)")
                    #expect(refusal.code == .appKeyInvalid)
                }
            }
        }
    }

    /// Whom the client signs as, by command and by whether the payload names a device (`r1`).
    static func clientRole(_ command: Command?, namingDevice: Bool) -> Role {
        switch command {
        case nil: .service
        case let command? where command.isInternal: .service
        case .appCreate?, .appList?: .admin
        case let command? where SigningPolicy.rule(for: command).device != .filter && namingDevice: .device
        default: .app
        }
    }

    @Test func theClientSpeaksForWhomThePayloadNames() {
        for row in Self.table {
            for naming in [true, false] {
                let expected = Self.clientRole(row.command, namingDevice: naming)
                #expect(SigningPolicy.clientSigners(for: row.command, namingDevice: naming).first == expected,
                        "\(name(row.command)) naming a device: \(naming)")
            }
        }
        #expect(SigningPolicy.clientSigners(for: nil, namingDevice: false) == [.service, .admin], "the admin when no service signs")
        #expect(SigningPolicy.clientSigners(for: .maErase, namingDevice: true) == [.device], "never the app behind a device's back")
    }

    /// For every command, with and without a device in the payload: the client's proof is of the
    /// principal the policy names, and the gateway admits it exactly when the table lets that
    /// principal sign the command (else 1008, as a device asking for `ma.erase` gets).
    @Test func theGatewayJudgesWhatTheClientSignsByTheSameTable() throws {
        var authenticator = Authenticator(secrets: secrets)
        let operatorSide = Signer(secrets: secrets)
        operatorSide.service = (name: "tagging", key: secrets.serviceSecret("tagging"))
        var admitted: [String] = []
        for row in Self.table {
            for naming in [true, false] where row.device != .required || naming {
                let payload = Data((naming ? #"{"app_key":"ak","registration_id":"r1"}"# : #"{"app_key":"ak"}"#).utf8)
                let body = operatorSide.sign(command: name(row.command), payload: payload)
                if row.command == .deviceRegister, !naming {
                    #expect(body.count == 2, "a first registration goes unsigned")
                    continue
                }
                let proof = try #require(body.count == 3 ? Proof(frame: body[2]) : nil, "\(name(row.command)) is signed")
                let role = Self.clientRole(row.command, namingDevice: naming)
                #expect(proof.principal.role == role, "\(name(row.command)) naming a device: \(naming)")
                var claims = PayloadKeys()
                claims.appKey = "ak"
                claims.ts = now
                if naming { claims.registrationID = "r1" }
                let result = authenticator.check(command: name(row.command), known: row.command, body: body, claims: claims, now: now)
                switch result {
                case .success(let admission):
                    #expect(row.signers.contains(role) && admission.principal == proof.principal, "\(name(row.command)) as \(role)")
                    admitted.append("\(name(row.command)) \(role)")
                case .failure(let refusal):
                    #expect(!row.signers.contains(role) && refusal.code == .appKeyInvalid, "\(name(row.command)) as \(role): \(refusal)")
                }
            }
        }
        #expect(admitted.contains("ma.erase app") && !admitted.contains("ma.erase device"))
        #expect(admitted.contains("device.register device") && admitted.contains("stats.report device") && !admitted.contains("stats.report app"))
    }
}
