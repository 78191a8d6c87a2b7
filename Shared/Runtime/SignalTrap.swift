import Dispatch
import Foundation

/// Runs a handler on SIGINT or SIGTERM instead of dying, so a service can shut down cleanly.
public enum SignalTrap {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Call once from main, before `run()`. The handler runs on a background queue and must be Sendable.
    public static func onTerminate(_ handler: @escaping @Sendable (Int32) -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }
}
