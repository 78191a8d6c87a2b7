import Schema
import Testing
@testable import SchedulerKit

@Suite("region rule")
struct RegionRuleTests {
    let office = LocalRegion(latitude: 37.335400, longitude: -122.009201, radius: 2_000)

    @Test func containsPointsWithinItsRadius() throws {
        let rule = try RegionRule(office)
        #expect(rule.contains(latitude: 37.3354, longitude: -122.009201))
        #expect(rule.contains(latitude: 37.3500, longitude: -122.009201), "about 1.6 km north")
        #expect(!rule.contains(latitude: 37.3600, longitude: -122.009201), "about 2.7 km north")
        #expect(!rule.contains(latitude: -37.3354, longitude: 57.990799), "the other side of the Earth")
    }

    @Test func firesOnTheCrossingsItNotifiesOn() throws {
        let both = try RegionRule(office)
        #expect(both.fires(wasInside: nil, isInside: true), "a first report inside is an entry")
        #expect(!both.fires(wasInside: nil, isInside: false), "no exit without having been inside")
        #expect(!both.fires(wasInside: true, isInside: true))
        #expect(both.fires(wasInside: true, isInside: false))
        #expect(both.fires(wasInside: false, isInside: true))
        var exitOnly = office
        exitOnly.notifyOnEntry = false
        let exit = try RegionRule(exitOnly)
        #expect(!exit.fires(wasInside: false, isInside: true))
        #expect(exit.fires(wasInside: true, isInside: false))
    }

    @Test func refusesRegionsThatCannotWork() {
        func refused(_ region: LocalRegion) -> Bool {
            do { _ = try RegionRule(region); return false } catch { return error.code == .invalidRequest }
        }
        #expect(refused(LocalRegion(latitude: 91, longitude: 0, radius: 10)))
        #expect(refused(LocalRegion(latitude: 0, longitude: -180.5, radius: 10)))
        #expect(refused(LocalRegion(latitude: 0, longitude: 0, radius: 0)))
        #expect(refused(LocalRegion(latitude: 0, longitude: 0, radius: 100_001)))
        #expect(refused(LocalRegion(latitude: 0, longitude: 0, radius: 10, notifyOnEntry: false, notifyOnExit: false)))
        #expect(!refused(LocalRegion(latitude: -90, longitude: 180, radius: 100_000)))
    }
}
