import Runtime
import Credentials

/// Signed requests per second per principal at the gateway: an app's server (`--app-rate`, per
/// `app_key`) and each device (`--device-rate`, per registration ID) in buckets of their own, each
/// holding one second's worth, so a short burst passes and a sustained excess gets code 6011. Only
/// requests whose proof verified are counted, against the principal that signed them: nobody spends
/// another app's rate, and a device (anyone can register one) cannot spend its app server's.
/// PushBus's own services and the admin are not limited here. Owned by the broker's thread.
struct PrincipalRateLimit {
    private var apps: TokenBuckets<String>?
    private var devices: TokenBuckets<String>?

    /// 0 is no limit.
    init(appRate: Int, deviceRate: Int) {
        apps = appRate > 0 ? TokenBuckets(perSecond: appRate, burst: appRate) : nil
        devices = deviceRate > 0 ? TokenBuckets(perSecond: deviceRate, burst: deviceRate) : nil
    }

    /// Takes a token for `principal` at monotonic millisecond `now`; false when none is left.
    mutating func allow(_ principal: Principal, now: Int64) -> Bool {
        switch principal {
        case .app(let appKey): apps?.allow(appKey, now: now) ?? true
        case .device(let id): devices?.allow(id, now: now) ?? true
        case .admin, .service: true
        }
    }
}
