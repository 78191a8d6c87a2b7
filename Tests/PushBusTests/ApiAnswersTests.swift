import Foundation
import JSON
import Testing

/// What the REST API answers before and around the services. Real processes.
@Suite("REST API answers (integration)", .serialized)
struct ApiAnswersTests {
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
}
