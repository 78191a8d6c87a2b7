import Foundation

/// Whether a thread of this process carries `name` as the kernel shows it (`/proc/self/task/*/comm`).
func aThreadIsNamed(_ name: String) -> Bool {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.contains { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) == name + "\n"
    }
}
