import Foundation
import Schema

/// A circle on the Earth a `region` trigger watches, and which crossings of its edge fire it.
struct RegionRule: Equatable {
    let latitude: Double
    let longitude: Double
    /// Metres.
    let radius: Double
    let onEntry: Bool
    let onExit: Bool

    /// The largest radius accepted, in metres.
    static let maxRadius = 100_000.0

    /// Checks coordinates and radius (6017). Entry and exit both default to true, as `CLRegion`'s do.
    init(_ region: LocalRegion) throws(CommandError) {
        try Self.checkPosition(latitude: region.latitude, longitude: region.longitude)
        guard region.radius.isFinite, region.radius > 0, region.radius <= Self.maxRadius else {
            throw .invalid("region.radius must be more than 0 and at most \(Int(Self.maxRadius)) metres")
        }
        latitude = region.latitude
        longitude = region.longitude
        radius = region.radius
        onEntry = region.notifyOnEntry ?? true
        onExit = region.notifyOnExit ?? true
        guard onEntry || onExit else { throw .invalid("region notifies on neither entry nor exit, so it never fires") }
    }

    /// Latitude in -90...90 and longitude in -180...180 (6017).
    static func checkPosition(latitude: Double, longitude: Double) throws(CommandError) {
        guard (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude) else {
            throw .invalid("latitude must be in -90...90 and longitude in -180...180")
        }
    }

    /// True when the point is inside the circle or on its edge (great-circle distance).
    func contains(latitude: Double, longitude: Double) -> Bool {
        Self.distance(self.latitude, self.longitude, latitude, longitude) <= radius
    }

    /// Whether a report (`isInside`) after the last known state (`wasInside`, nil before any report)
    /// crosses the edge in a direction this region notifies on. A first report inside counts as entering.
    func fires(wasInside: Bool?, isInside: Bool) -> Bool {
        if isInside { return onEntry && wasInside != true }
        return onExit && wasInside == true
    }

    /// Haversine distance in metres on a sphere of the Earth's mean radius.
    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2)
            + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 6_371_008.8 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}
