import ApiKit
import Foundation
import Testing

/// The API's routes: how a request finds one, and docs/openapi.yaml describing every one of them.
@Suite("REST API routes")
struct ApiRoutesTests {
    static let openAPI = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml").path

    let router = Router(Api.routes)

    func found(_ method: String, _ path: String) -> (pattern: String, parameters: [String: String])? {
        guard case .found(let route, let parameters) = router.match(method: method, path: path) else { return nil }
        return (route.pattern, parameters)
    }

    @Test func aPathFindsItsRouteWithOrWithoutATrailingSlash() {
        #expect(found("GET", "/v3/tags/")?.pattern == "/v3/tags")
        #expect(found("GET", "/v3/tags")?.pattern == "/v3/tags")
        #expect(found("POST", "/v3/schedules/")?.pattern == "/v3/schedules")
        #expect(found("GET", "/v4/devices/abc%2F1")?.parameters == ["registration_id": "abc/1"], "parameters are percent-decoded")
    }

    @Test func aLiteralSegmentBeatsAParameter() {
        #expect(found("POST", "/v4/devices/status")?.pattern == "/v4/devices/status")
        #expect(found("POST", "/v4/devices/r1")?.pattern == "/v4/devices/{registration_id}")
    }

    @Test func aKnownPathWithAnotherMethodIsNotAnUnknownPath() {
        guard case .wrongMethod(let allowed) = router.match(method: "PATCH", path: "/v4/devices/r1") else {
            Issue.record("PATCH of a device is a wrong method")
            return
        }
        #expect(Set(allowed) == ["GET", "POST", "DELETE"])
        guard case .unknownPath = router.match(method: "GET", path: "/v4/devices/r1/extra") else {
            Issue.record("a longer path is unknown")
            return
        }
    }

    @Test func everyRouteIsInTheOpenAPIDescription() throws {
        let text = try String(contentsOfFile: Self.openAPI, encoding: .utf8)
        var operations: Set<String> = []
        var path = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("  /") { path = String(line.dropFirst(2).dropLast()) }
            if line.hasPrefix("    ") && !line.hasPrefix("     "), let method = ["get", "post", "put", "delete"].first(where: { line == "    \($0):" }) {
                operations.insert(method.uppercased() + " " + path)
            }
        }
        let routed = Set(Api.routes.map { $0.method + " " + $0.pattern })
        #expect(routed.subtracting(operations).isEmpty, "routed but not described: \(routed.subtracting(operations).sorted())")
        #expect(operations.subtracting(routed).isEmpty, "described but not routed: \(operations.subtracting(routed).sorted())")
    }

    @Test func theOpenAPIDescriptionIsValid() throws {
        let validator = Process()
        validator.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        validator.arguments = ["python3", "-m", "openapi_spec_validator", Self.openAPI]
        let output = Pipe()
        validator.standardOutput = output
        validator.standardError = output
        try validator.run()
        validator.waitUntilExit()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(validator.terminationStatus == 0, "\(said)")
    }
}
