import Foundation
import JSON
import Testing

/// What the REST API answers before and around the services: an unknown path or method without
/// echoing the request, the authorization scheme read without regard to case, and a value of the
/// wrong shape described by its field, on the bus and over REST alike. Real processes.
@Suite("REST API answers (integration)", .serialized)
struct ApiAnswersTests {
    @Test func anUnknownPathOrAWrongMethodIsAnsweredWithoutEchoingTheRequest() throws {
        let stack = try TestStack().start([])
        let api = try ApiServer(stack: stack, extra: ["--app-quota", "0"])
        let absolute = try HTTPGet.exchange(port: api.port, path: "http://alice:s3cret-Pa55@example.com/v9/private-thing?x=1", timeout: 10)
        #expect(absolute.status == 404, "\(absolute)")
        let wrong = try HTTPGet.exchange(port: api.port, path: "/v4/devices/s3cret-Pa55", timeout: 10, method: "PATCH")
        #expect(wrong.status == 405 && wrong.headers["allow"] != nil, "\(wrong)")
        for answer in [absolute, wrong] {
            #expect(answer.body.contains("\"error\""), "\(answer.body)")
            for sent in ["alice", "s3cret", "Pa55", "private-thing", "example.com", "PATCH", "/v4/devices"] {
                #expect(!answer.body.contains(sent), "\(sent) echoed: \(answer.body)")
            }
        }
    }

    @Test func theAuthorizationSchemeIsReadWithoutRegardToCase() throws {
        let stack = try TestStack().start([])
        let api = try ApiServer(stack: stack, extra: ["--app-quota", "0"])
        let credentials = String(api.basic("caseapp").dropFirst("Basic ".count))
        let admin = String(api.bearer.dropFirst("Bearer ".count))
        // A body that is not an object: refused (400) once the caller is known, before any bus call.
        for scheme in ["Basic", "basic", "BASIC", "bAsIc"] {
            let answer = try api.send("POST", "/v4/push", .array([]), authorization: "\(scheme) \(credentials)")
            #expect(answer.status == 400, "\(scheme): \(answer.status) \(answer.body)")
        }
        #expect(try api.send("POST", "/v4/push", .array([]), authorization: "Basic   \(credentials)").status == 400, "several spaces")
        for scheme in ["Bearer", "bearer", "BEARER"] {
            let answer = try api.send("POST", "/v1/apps", .array([]), authorization: "\(scheme) \(admin)")
            #expect(answer.status == 400, "\(scheme): \(answer.status) \(answer.body)")
        }
        for wrong in ["Basicx \(credentials)", "Basic", "Bearer", "Basic \(credentials.dropLast(4))", "Digest \(credentials)"] {
            #expect(try api.send("POST", "/v4/push", .array([]), authorization: wrong).status == 401, "\(wrong)")
        }
    }

    @Test func aValueOfTheWrongShapeIsDescribedByItsFieldNotByTheDecoder() throws {
        let stack = try TestStack().start(["registration", "badge", "scheduler"])
        let client = try stack.client()
        let device = try client.register(appKey: "shapeapp", deviceID: "one")
        let api = try ApiServer(stack: stack, extra: ["--app-quota", "0"])

        let huge = try client.json("badge.set", ["app_key": "shapeapp".json, "registration_id": .string(device), "value": .number(9.3e18)])
        #expect(huge.code == 6017, "\(huge)")
        #expect(huge["message"]?.string?.hasPrefix("value must be an integer") == true, "\(huge)")
        let fraction = try client.json("local.add", ["app_key": "shapeapp".json, "registration_id": .string(device), "identifier": "i".json,
                                                     "content": .object(["title": "t".json, "badge": .number(1.5)]),
                                                     "trigger": .object(["time_interval": .number(60)])])
        #expect(fraction.code == 6017 && fraction["message"]?.string == "content.badge must be an integer", "\(fraction)")

        let schedule = try api.send("POST", "/v4/schedules", .object(["name": "n".json, "enabled": "yes".json]),
                                    authorization: api.basic("shapeapp"))
        #expect(schedule.status == 400 && schedule.body["error"]?["code"]?.number == 6017, "\(schedule.body)")
        #expect(schedule.body["error"]?["message"]?.string == "enabled must be a boolean", "\(schedule.body)")
    }
}
