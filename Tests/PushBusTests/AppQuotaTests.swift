import ApiKit
import Testing

/// The api's per-app quota: units taken up to what the window has left, the window's standing, and
/// a fresh window.
@Suite("App quota")
struct AppQuotaTests {
    @Test func aTakeGetsWhatTheWindowHasLeftAndNoMore() {
        let quota = AppQuota(quota: 5, windowSeconds: 60)
        #expect(quota.take("a", now: 120) == 1)
        #expect(quota.take("a", upTo: 3, now: 121) == 3)
        #expect(quota.take("a", upTo: 3, now: 122) == 1, "one unit was left")
        #expect(quota.take("a", now: 123) == 0)
        #expect(quota.standing("a", now: 123)?.remaining == 0)
        #expect(quota.standing("a", now: 123)?.reset == 57)
        #expect(quota.take("b", upTo: 2, now: 124) == 2, "each app has its own window")
        #expect(quota.standing("a", now: 180)?.remaining == 5, "the window turned")
        #expect(quota.take("a", upTo: 9, now: 181) == 5)
    }

    @Test func withoutALimitEveryUnitIsTaken() {
        let quota = AppQuota(quota: 0, windowSeconds: 60)
        #expect(quota.take("a", upTo: 1000, now: 1) == 1000)
        #expect(quota.standing("a", now: 1) == nil)
        #expect(AppQuota(quota: 5, windowSeconds: 60).take("a", upTo: 0, now: 1) == 0)
    }
}
