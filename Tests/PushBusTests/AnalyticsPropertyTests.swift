import Foundation
import JSON
import Schema
import Testing
@testable import AnalyticsKit

/// `ma.property`: every operation of the MA seed with its exact semantics, the seed's examples literally.
@Suite("analytics user properties")
struct AnalyticsPropertyTests {
    let ma: AnalyticsHarness
    var euid: String { ma.euid }

    init() throws { ma = try AnalyticsHarness() }

    func property(_ payload: String) -> JSONValue { ma.property(euid, payload) }
    var properties: JSONValue? { ma.properties(euid) }

    /// The seed's `setProperty:` batch example.
    func setSeedExample() {
        #expect(property("""
            {"op":"set","properties":{
               "level": "gold",
               "profile": { "city": "Singapore", "score": 100 },
               "addresses": [
                   { "id": "home", "city": "Singapore" },
                   { "id": "office", "city": "Tokyo" }
               ]}}
            """).code == 0)
    }

    // MARK: set

    @Test func theSeedsBatchIsStoredAsGiven() {
        setSeedExample()
        #expect(properties == json("""
            {"level":"gold","profile":{"city":"Singapore","score":100},
             "addresses":[{"id":"home","city":"Singapore"},{"id":"office","city":"Tokyo"}]}
            """))
    }

    @Test func theSeedsSingleSetOfAnObject() {
        #expect(property(#"{"op":"set","key":"profile","value":{ "city": "Singapore", "score": 100 }}"#).code == 0)
        #expect(properties == json(#"{"profile":{"city":"Singapore","score":100}}"#))
    }

    @Test func updatingOnlyProfileScoreLeavesProfileCity() {
        setSeedExample()
        #expect(property(#"{"op":"set","key":"profile","value":{ "score": 200 }}"#).code == 0)
        #expect(properties?["profile"] == json(#"{"city":"Singapore","score":200}"#))
    }

    @Test func nullRemovesOnlyProfileCity() {
        setSeedExample()
        #expect(property(#"{"op":"set","key":"profile","value":{ "city": null }}"#).code == 0)
        #expect(properties?["profile"] == json(#"{"score":100}"#))
    }

    @Test func ordinaryValuesAreOverwrittenOrCreated() {
        setSeedExample()
        #expect(property(#"{"op":"set","properties":{"level":"platinum","vip":true,"spent":12.5,"likes":["tea","jazz","tea"]}}"#).code == 0)
        #expect(properties?["level"] == "platinum".json)
        #expect(properties?["vip"] == .bool(true))
        #expect(properties?["spent"] == .number(12.5))
        #expect(properties?["likes"] == json(#"["tea","jazz"]"#), "a string list is a set: duplicates dropped, order kept")
    }

    @Test func anObjectArrayIsReplacedWholeInItsOrder() {
        setSeedExample()
        #expect(property(#"{"op":"set","key":"addresses","value":[{"id":"school","city":"Osaka"},{"id":"home","city":"Kyoto","zip":null}]}"#).code == 0)
        #expect(properties?["addresses"] == json(#"[{"id":"school","city":"Osaka"},{"id":"home","city":"Kyoto"}]"#),
                "replaced, order kept, null subfields dropped")
    }

    @Test func anEmptyArrayClearsAnExistingArrayButCannotCreateOne() {
        setSeedExample()
        #expect(property(#"{"op":"set","properties":{"likes":["tea"]}}"#).code == 0)
        #expect(property(#"{"op":"set","properties":{"addresses":[],"likes":[]}}"#).code == 0)
        #expect(properties?["addresses"] == json("[]"))
        #expect(properties?["likes"] == json("[]"))
        #expect(property(#"{"op":"set","key":"fresh","value":[]}"#).code == 6017, "a list or an object_array? unknown")
        #expect(property(#"{"op":"set","key":"level","value":[]}"#).code == 6017, "level is a string")
        #expect(properties?["fresh"] == nil)
    }

    @Test func namingRulesRefuseTheWholeBatch() {
        let badNames = ["Level", "1level", "le-vel", "lével", "el_score", "elite", "engagelab_x", "metaverse_id",
                        String(repeating: "n", count: 51), ""]
        for name in badNames {
            let result = property("{\"op\":\"set\",\"properties\":{\"good\":1,\"\(name)\":2}}")
            #expect(result.code == 6017, "\(name)")
        }
        #expect(properties == json("{}"), "no entry of a refused batch is stored")
        #expect(property("{\"op\":\"set\",\"key\":\"\(String(repeating: "n", count: 50))\",\"value\":1}").code == 0, "50 bytes is fine")
        #expect(property(#"{"op":"set","key":"a_1_b","value":1}"#).code == 0)
    }

    @Test func valueTypeRulesRefuseTheWholeBatch() {
        let badValues = [
            "null",                                       // a top-level null cannot delete
            #"{"inner":{"deep":1}}"#,                     // nested object
            #"{"list":[{"id":1}]}"#,                      // nested object_array
            #"{"a.b":1}"#, #"{"a$b":1}"#, #"{"":1}"#,     // subfield names
            "{}",                                         // empty object
            "[1,2]", #"["a",1]"#, #"[{"id":"a"},"b"]"#,   // arrays of numbers or mixed
            #"[{"id":null}]"#, "[{}]",                    // an element with no non-null subfield
            #"{"tags":[1]}"#,                             // a subfield list of non-strings
        ]
        for value in badValues {
            let result = property("{\"op\":\"set\",\"properties\":{\"good\":1,\"bad\":\(value)}}")
            #expect(result.code == 6017, "\(value)")
        }
        #expect(properties == json("{}"))
    }

    @Test func aBatchHoldsAtMost100() {
        let hundred = (0..<100).map { "\"p\($0)\":\($0)" }.joined(separator: ",")
        #expect(property("{\"op\":\"set\",\"properties\":{\(hundred)}}").code == 0)
        #expect(property("{\"op\":\"set\",\"properties\":{\(hundred),\"p100\":1}}").code == 6017)
        #expect(properties?["p100"] == nil)
        if case .object(let stored)? = properties { #expect(stored.count == 100) }
    }

    @Test func theFirstValueFixesATypeAndAnotherIsRefused() {
        setSeedExample()
        #expect(property(#"{"op":"set","properties":{"level":3,"other":1}}"#).code == 6017)
        #expect(property(#"{"op":"set","key":"profile","value":{"score":"high"}}"#).code == 6017, "a subfield keeps its type")
        #expect(property(#"{"op":"set","key":"addresses","value":{"id":"x"}}"#).code == 6017, "an object_array is not an object")
        #expect(property(#"{"op":"set","key":"addresses","value":[{"id":1}]}"#).code == 6017, "addresses.id is a string")
        #expect(property(#"{"op":"set","key":"mixed","value":[{"id":"a"},{"id":2}]}"#).code == 6017,
                "elements of one array agree on subfield types")
        let other = ma.start("other-device")
        #expect(ma.property(other, #"{"op":"set","key":"level","value":5}"#).code == 6017, "metadata is per app, not per user")
        #expect(properties?["other"] == nil)
        #expect(properties?["level"] == "gold".json)
    }

    @Test func shapeOfTheRequest() {
        #expect(property(#"{"properties":{"a":1}}"#).code == 6001, "op missing")
        #expect(property(#"{"op":"explode"}"#).code == 6017)
        #expect(property(#"{"op":"set"}"#).code == 6001)
        #expect(property(#"{"op":"set","properties":{}}"#).code == 6001)
        #expect(property(#"{"op":"set","key":"a"}"#).code == 6001, "value missing")
        #expect(property(#"{"op":"set","key":"a","value":null}"#).code == 6017, "top-level null")
        #expect(property(#"{"op":"set","key":"a","value":1,"properties":{"b":1}}"#).code == 6017, "both forms at once")
        #expect(ma.property("0123456789abcdef01234567", #"{"op":"set","key":"a","value":1}"#).code == -2)
    }

    // MARK: increase

    @Test func increaseAccumulatesNumbersFromZero() {
        #expect(property(#"{"op":"increase","key":"key","amount":2}"#).code == 0)
        #expect(properties?["key"] == .number(2), "a missing property starts at 0")
        #expect(property(#"{"op":"increase","properties":{"key1":5,"key2":3}}"#).code == 0)
        #expect(property(#"{"op":"increase","properties":{"key1":5,"key":-0.5}}"#).code == 0)
        #expect(properties == json(#"{"key":1.5,"key1":10,"key2":3}"#))
    }

    @Test func increaseLeavesOtherTypesAlone() {
        setSeedExample()
        #expect(property(#"{"op":"increase","properties":{"level":2,"spent":2}}"#).code == 0)
        #expect(properties?["level"] == "gold".json, "only numbers increase; others are ignored")
        #expect(properties?["spent"] == .number(2))
        #expect(property(#"{"op":"increase","key":"profile","amount":1}"#).code == 0)
        #expect(properties?["profile"] == json(#"{"city":"Singapore","score":100}"#))
    }

    @Test func increaseTakesNumbersOnly() {
        #expect(property(#"{"op":"increase","key":"k","amount":"2"}"#).code == 6017)
        #expect(property(#"{"op":"increase","properties":{"k":"2"}}"#).code == 6017)
        #expect(property(#"{"op":"increase","properties":{"k":true}}"#).code == 6017)
        #expect(property(#"{"op":"increase","key":"k"}"#).code == 6001)
        #expect(properties == json("{}"))
    }

    // MARK: add / remove

    @Test func addAndRemoveWorkOnStringSets() {
        #expect(property(#"{"op":"add","key":"key","values":["value"]}"#).code == 0)
        #expect(property(#"{"op":"add","properties":{"key1":["value"],"key2":["value"]}}"#).code == 0)
        #expect(property(#"{"op":"add","key":"key","values":["b","value","c"]}"#).code == 0)
        #expect(properties == json(#"{"key":["value","b","c"],"key1":["value"],"key2":["value"]}"#),
                "created when missing; a value already there is not added twice")
        #expect(property(#"{"op":"remove","key":"key","values":["value","zzz"]}"#).code == 0)
        #expect(properties?["key"] == json(#"["b","c"]"#))
        #expect(property(#"{"op":"remove","key":"never","values":["a"]}"#).code == 0)
        #expect(properties?["never"] == nil, "removing from a missing property creates nothing")
    }

    @Test func addAndRemoveLeaveOtherTypesAlone() {
        setSeedExample()
        #expect(property(#"{"op":"add","key":"level","values":["x"]}"#).code == 0)
        #expect(property(#"{"op":"remove","key":"level","values":["gold"]}"#).code == 0)
        #expect(properties?["level"] == "gold".json)
        #expect(property(#"{"op":"add","key":"key","values":[1]}"#).code == 6017, "elements must be strings")
        #expect(property(#"{"op":"remove","key":"key","values":"value"}"#).code == 6017)
        #expect(property(#"{"op":"add","key":"key"}"#).code == 6001)
    }

    // MARK: delete

    @Test func deleteRemovesAnyTypeAndIgnoresMissing() {
        setSeedExample()
        for key in ["level", "profile", "addresses"] {
            #expect(property("{\"op\":\"delete\",\"key\":\"\(key)\"}").code == 0)
        }
        #expect(properties == json("{}"))
        #expect(property(#"{"op":"delete","key":"key"}"#).code == 0, "missing: ignored")
        #expect(property(#"{"op":"delete"}"#).code == 6001)
        #expect(property(#"{"op":"set","key":"level","value":"silver"}"#).code == 0, "its type is still known")
        #expect(property(#"{"op":"set","key":"level","value":1}"#).code == 6017)
    }

    // MARK: object_array elements

    @Test func updateTheHomeAddressAsTheSeedShows() {
        setSeedExample()
        let result = property("""
            {"op":"update_object_array","key":"addresses","identifier_key":"id","identifier_value":"home",
             "values":{ "city": "Tokyo", "zip": null }}
            """)
        #expect(result.code == 0)
        #expect(properties?["addresses"] == json(#"[{"id":"home","city":"Tokyo"},{"id":"office","city":"Tokyo"}]"#))
    }

    @Test func updateMergesSubfieldsAndNullRemovesOne() {
        #expect(property(#"{"op":"set","key":"addresses","value":[{"id":"home","city":"Singapore","zip":"018956"},{"id":"office","city":"Tokyo"}]}"#).code == 0)
        #expect(property(#"{"op":"update_object_array","key":"addresses","identifier_key":"id","identifier_value":"home","values":{"city":"Tokyo","zip":null,"floor":3}}"#).code == 0)
        #expect(properties?["addresses"] == json(#"[{"id":"home","city":"Tokyo","floor":3},{"id":"office","city":"Tokyo"}]"#))
    }

    @Test func appendTheSchoolAddressAsTheSeedShows() {
        setSeedExample()
        #expect(property(#"{"op":"add_object_array","key":"addresses","object":{ "id": "school", "city": "Osaka" }}"#).code == 0)
        #expect(properties?["addresses"] == json("""
            [{"id":"home","city":"Singapore"},{"id":"office","city":"Tokyo"},{"id":"school","city":"Osaka"}]
            """), "appended at the end, the others untouched")
    }

    @Test func removeTheOfficeAddressAsTheSeedShows() {
        setSeedExample()
        #expect(property(#"{"op":"remove_object_array","key":"addresses","identifier_key":"id","identifier_value":"office"}"#).code == 0)
        #expect(properties?["addresses"] == json(#"[{"id":"home","city":"Singapore"}]"#))
    }

    @Test func exactlyOneElementMustMatchAnUpdate() {
        #expect(property(#"{"op":"set","key":"addresses","value":[{"id":"home","city":"A"},{"id":"home","city":"B"},{"id":"office"}]}"#).code == 0)
        let before = properties
        #expect(property(#"{"op":"update_object_array","key":"addresses","identifier_key":"id","identifier_value":"home","values":{"city":"C"}}"#).code == 6017,
                "two matches")
        #expect(property(#"{"op":"update_object_array","key":"addresses","identifier_key":"id","identifier_value":"gym","values":{"city":"C"}}"#).code == 6017,
                "no match")
        #expect(property(#"{"op":"remove_object_array","key":"addresses","identifier_key":"id","identifier_value":"home"}"#).code == 6017,
                "remove with two matches")
        #expect(property(#"{"op":"remove_object_array","key":"addresses","identifier_key":"id","identifier_value":"gym"}"#).code == 0,
                "remove with no match is ignored")
        #expect(properties == before, "no element was created or changed")
    }

    @Test func numbersIdentifyElementsToo() {
        #expect(property(#"{"op":"set","key":"orders","value":[{"no":1,"state":"new"},{"no":2,"state":"new"}]}"#).code == 0)
        #expect(property(#"{"op":"update_object_array","key":"orders","identifier_key":"no","identifier_value":2,"values":{"state":"paid"}}"#).code == 0)
        #expect(property(#"{"op":"update_object_array","key":"orders","identifier_key":"no","identifier_value":"2","values":{"state":"x"}}"#).code == 6017,
                "the identifier field type differs")
        #expect(property(#"{"op":"update_object_array","key":"orders","identifier_key":"no","identifier_value":true,"values":{"state":"x"}}"#).code == 6017,
                "a boolean is not a number")
        #expect(property(#"{"op":"update_object_array","key":"orders","identifier_key":"state","identifier_value":"new","values":{"no":9}}"#).code == 0,
                "any string subfield can identify")
        #expect(properties?["orders"] == json(#"[{"no":9,"state":"new"},{"no":2,"state":"paid"}]"#))
    }

    @Test func theIdentifierSubfieldMustBeAStringOrNumberInMetadata() {
        #expect(property(#"{"op":"set","key":"cards","value":[{"id":"c1","primary":true,"tags":["x"]}]}"#).code == 0)
        for key in ["primary", "tags", "undefined_field"] {
            let update = property("{\"op\":\"update_object_array\",\"key\":\"cards\",\"identifier_key\":\"\(key)\",\"identifier_value\":\"c1\",\"values\":{\"x\":1}}")
            #expect(update.code == 6017, "\(key)")
            let remove = property("{\"op\":\"remove_object_array\",\"key\":\"cards\",\"identifier_key\":\"\(key)\",\"identifier_value\":\"c1\"}")
            #expect(remove.code == 6017, "\(key)")
        }
        #expect(property(#"{"op":"update_object_array","key":"cards","identifier_key":"id","identifier_value":"c1","values":{"primary":"yes"}}"#).code == 6017,
                "a subfield that does not meet its metadata")
        #expect(properties?["cards"] == json(#"[{"id":"c1","primary":true,"tags":["x"]}]"#))
    }

    @Test func undefinedOrValuelessPropertiesAnswerZeroWithoutAChange() {
        let update = #"{"op":"update_object_array","key":"addresses","identifier_key":"id","identifier_value":"home","values":{"city":"Tokyo"}}"#
        let remove = #"{"op":"remove_object_array","key":"addresses","identifier_key":"id","identifier_value":"home"}"#
        let add = #"{"op":"add_object_array","key":"addresses","object":{"id":"school"}}"#
        for payload in [update, remove, add] { #expect(property(payload).code == 0, "undefined: \(payload)") }
        #expect(properties == json("{}"), "add_object_array cannot create an undefined property")

        let other = ma.start("other-device")
        #expect(ma.property(other, #"{"op":"set","key":"addresses","value":[{"id":"home","city":"Singapore"}]}"#).code == 0)
        #expect(property(update).code == 0, "defined, but this user has no value")
        #expect(property(remove).code == 0)
        #expect(properties == json("{}"))
        #expect(property(add).code == 0)
        #expect(properties?["addresses"] == json(#"[{"id":"school"}]"#), "defined without a value: a one-element array")
    }

    @Test func elementOperationsRefuseOtherTypesAndBadInput() {
        setSeedExample()
        #expect(property(#"{"op":"update_object_array","key":"level","identifier_key":"id","identifier_value":"x","values":{"a":1}}"#).code == 6017)
        #expect(property(#"{"op":"add_object_array","key":"profile","object":{"a":1}}"#).code == 6017)
        #expect(property(#"{"op":"remove_object_array","key":"level","identifier_key":"id","identifier_value":"x"}"#).code == 6017)
        let update = #"{"op":"update_object_array","key":"addresses","identifier_key":"id","identifier_value":"home""#
        #expect(property(update + #","values":{"id":"x"}}"#).code == 6017, "values must not hold the identifier")
        #expect(property(update + #","values":{}}"#).code == 6017, "values must not be empty")
        #expect(property(update + #","values":{"geo":{"lat":1}}}"#).code == 6017, "no nested objects")
        #expect(property(update + #","values":[1]}"#).code == 6017)
        #expect(property(update + "}").code == 6001, "values missing")
        #expect(property(#"{"op":"update_object_array","key":"addresses","identifier_key":"id","values":{"a":1}}"#).code == 6001)
        #expect(property(#"{"op":"update_object_array","key":"addresses","identifier_value":"home","values":{"a":1}}"#).code == 6001)
        #expect(property(#"{"op":"add_object_array","key":"addresses"}"#).code == 6001)
        #expect(property(#"{"op":"add_object_array","key":"addresses","object":{"id":null}}"#).code == 6017,
                "an element needs a subfield that is not null")
        #expect(property(#"{"op":"add_object_array","key":"addresses","object":{}}"#).code == 6017)
        #expect(property(#"{"op":"add_object_array","key":"addresses","object":{"id":5}}"#).code == 6017, "addresses.id is a string")
        #expect(properties?["addresses"] == json(#"[{"id":"home","city":"Singapore"},{"id":"office","city":"Tokyo"}]"#))
    }
}
