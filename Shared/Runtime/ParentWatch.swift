import Dispatch
import Foundation

/// Stops a process whose launcher died: when the parent is no longer `parent` (the orphan was
/// adopted by another process), calls `onOrphaned` once. Checked every half second on a timer.
public final class ParentWatch {
    private let timer: any DispatchSourceTimer

    /// Nil when `parent` is nil or not a number.
    public init?(parent: String?, onOrphaned: @escaping @Sendable () -> Void) {
        guard let parent, let pid = Int32(parent) else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now(), repeating: .milliseconds(500))
        timer.setEventHandler {
            guard getppid() != pid else { return }
            timer.cancel()
            onOrphaned()
        }
        timer.resume()
        self.timer = timer
    }
}

extension Option {
    /// `--parent-pid`, which turns a `ParentWatch` on; the launcher and the test harness set it for
    /// their children.
    public static func parentPID(_ property: WritableKeyPath<Root, String?> & Sendable) -> Option {
        .optional("parent-pid", property, help: "Stop when this process id is no longer our parent (set by the launcher).")
    }
}
