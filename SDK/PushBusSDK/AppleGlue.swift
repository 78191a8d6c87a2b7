#if canImport(UIKit) && canImport(UserNotifications)
// The Apple-only glue (seed 000: "mtpNotificationCenter" forwarding, the app delegate's token, the
// notification service extension's delivery report). Written against Apple's documented API
// (UIApplicationDelegate, UNUserNotificationCenterDelegate, UNNotificationServiceExtension); not
// compiled by CI, which runs on Linux: everything it calls is compiled and tested there.
import UIKit
import UserNotifications

/// Forwards the notification center's callbacks to PushBus: a notification shown while the app is
/// in the foreground is reported `displayed`, one the user opened `opened` (by its `_j_msgid`), and
/// the app's own delegate, if any, still gets every call.
public final class PushBusNotificationCenterDelegate: NSObject, UNUserNotificationCenterDelegate {
    private let client: PushBusClient
    private weak var next: UNUserNotificationCenterDelegate?

    /// Installs itself as the current center's delegate, keeping the app's as `next`.
    public init(client: PushBusClient) {
        self.client = client
        next = UNUserNotificationCenter.current().delegate
        super.init()
        UNUserNotificationCenter.current().delegate = self
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                       withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void) {
        if let msgID = notification.request.content.userInfo["_j_msgid"] as? String { client.report("displayed", msgID: msgID) }
        if let next, next.responds(to: #selector(userNotificationCenter(_:willPresent:withCompletionHandler:))) {
            next.userNotificationCenter?(center, willPresent: notification, withCompletionHandler: completionHandler)
        } else {
            completionHandler([.banner, .sound, .badge])
        }
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                       withCompletionHandler completionHandler: @escaping () -> Void) {
        if let msgID = response.notification.request.content.userInfo["_j_msgid"] as? String { client.report("opened", msgID: msgID) }
        if let next, next.responds(to: #selector(userNotificationCenter(_:didReceive:withCompletionHandler:))) {
            next.userNotificationCenter?(center, didReceive: response, withCompletionHandler: completionHandler)
        } else {
            completionHandler()
        }
    }
}

extension PushBusClient {
    /// From `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`: the seed's `registerDeviceToken:`.
    public func registerDeviceToken(_ deviceToken: Data) { register(apnsToken: deviceToken) }

    /// Asks for notification permission and tells PushBus the answer (so a `notification_reminder`
    /// reaches a user who said no), then registers for remote notifications.
    public func requestAuthorization(options: UNAuthorizationOptions = [.alert, .badge, .sound]) {
        UNUserNotificationCenter.current().requestAuthorization(options: options) { [weak self] granted, _ in
            self?.setNotificationAuthorization(granted ? "granted" : "denied")
            DispatchQueue.main.async { UIApplication.shared.registerForRemoteNotifications() }
        }
    }
}

/// For the app's notification service extension: reports each notification `received` as it
/// arrives (the seed's delivery report), then lets the content through unchanged.
open class PushBusNotificationService: UNNotificationServiceExtension {
    /// The extension's own client: the app group's state directory, so it signs as the app's device.
    open var client: PushBusClient? { nil }

    open override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let client, let msgID = request.content.userInfo["_j_msgid"] as? String else { return contentHandler(request.content) }
        client.callbackQueue = DispatchQueue.global()
        client.report("received", msgID: msgID) { _ in contentHandler(request.content) }
    }
}
#endif
