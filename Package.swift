// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PushBus",
    products: [
        .executable(name: "gateway", targets: ["gateway"]),
        .executable(name: "registration", targets: ["registration"]),
        .executable(name: "tagging", targets: ["tagging"]),
        .executable(name: "analytics", targets: ["analytics"]),
        .executable(name: "scheduler", targets: ["scheduler"]),
        .executable(name: "badge", targets: ["badge"]),
        .executable(name: "pushctl", targets: ["pushctl"]),
        .executable(name: "pushbus", targets: ["pushbus"]),
        .executable(name: "pushbus-replay", targets: ["pushbus-replay"]),
        .executable(name: "pushbus-fuzz", targets: ["pushbus-fuzz"]),
        .executable(name: "pushbus-backup", targets: ["pushbus-backup"]),
    ],
    targets: [
        // C libraries from Debian, through module maps.
        .systemLibrary(name: "CZeroMQ", path: "Shared/CZeroMQ", pkgConfig: "libzmq",
                       providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Shared/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Shared/CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Shared/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),

        // Shared layers: ZeroMQ → SQLite → JSON → schema → Majordomo → runtime / client.
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], path: "Shared/ZeroMQ"),
        .target(name: "SQLite", dependencies: ["CSQLite"], path: "Shared/SQLite"),
        .target(name: "JSON", path: "Shared/JSON"),
        .target(name: "Schema", dependencies: ["JSON"], path: "Shared/Schema"),
        .target(name: "Majordomo", dependencies: ["ZeroMQ"], path: "Shared/Majordomo"),
        .target(name: "Runtime", dependencies: ["ZeroMQ", "SQLite", "JSON", "Schema", "Majordomo", "Client", "Credentials"],
                path: "Shared/Runtime"),
        .target(name: "Credentials", dependencies: ["CCrypto"], path: "Shared/Credentials"),
        .target(name: "Client", dependencies: ["ZeroMQ", "JSON", "Schema", "Majordomo", "Credentials"], path: "Shared/Client"),

        // Services: a library with the logic, a thin executable.
        .target(name: "GatewayKit", dependencies: ["ZeroMQ", "JSON", "Schema", "Majordomo", "Runtime", "Credentials", "CMicroHTTPD"],
                path: "Services/GatewayKit"),
        .executableTarget(name: "gateway", dependencies: ["GatewayKit", "Runtime"], path: "Services/Gateway"),
        .target(name: "RegistrationKit", dependencies: ["SQLite", "Schema", "Runtime", "Credentials"],
                path: "Services/RegistrationKit"),
        .executableTarget(name: "registration", dependencies: ["RegistrationKit", "Runtime", "Credentials"],
                          path: "Services/Registration"),
        .target(name: "AnalyticsKit", dependencies: ["SQLite", "JSON", "Schema", "Runtime", "Credentials"],
                path: "Services/AnalyticsKit"),
        .executableTarget(name: "analytics", dependencies: ["AnalyticsKit", "Runtime"],
                          path: "Services/Analytics"),

        .target(name: "TaggingKit", dependencies: ["SQLite", "Schema", "Runtime"], path: "Services/TaggingKit"),
        .executableTarget(name: "tagging", dependencies: ["TaggingKit", "Runtime"], path: "Services/Tagging"),
        .target(name: "SchedulerKit", dependencies: ["SQLite", "JSON", "Schema", "Runtime"],
                path: "Services/SchedulerKit"),
        .executableTarget(name: "scheduler", dependencies: ["SchedulerKit", "Runtime"],
                          path: "Services/Scheduler"),
        .target(name: "BadgeKit", dependencies: ["SQLite", "Schema", "Runtime"], path: "Services/BadgeKit"),
        .executableTarget(name: "badge", dependencies: ["BadgeKit", "Runtime"], path: "Services/Badge"),

        // Tools.
        .executableTarget(name: "pushctl", dependencies: ["Client", "JSON", "Schema", "Runtime", "Credentials"], path: "Tools/PushCtl"),
        .executableTarget(name: "pushbus", dependencies: ["Client", "Credentials", "Runtime"], path: "Tools/Launcher"),
        .target(name: "ReplayKit", dependencies: ["ZeroMQ", "JSON", "Schema", "Majordomo", "Runtime", "Client", "Credentials"],
                path: "Tools/ReplayKit"),
        .executableTarget(name: "pushbus-replay", dependencies: ["ReplayKit", "Runtime", "Schema", "Credentials"], path: "Tools/Replay"),
        .executableTarget(name: "pushbus-backup", dependencies: ["Credentials", "SQLite", "Runtime"], path: "Tools/Backup"),
        .target(name: "FuzzKit", dependencies: ["ZeroMQ", "JSON", "Schema", "Majordomo", "ReplayKit", "Client", "Credentials"],
                path: "Tools/FuzzKit"),
        .executableTarget(name: "pushbus-fuzz", dependencies: ["FuzzKit", "Runtime", "Schema", "Credentials"], path: "Tools/Fuzz"),

        // Benchmarks: executables, never tests (`make bench`).
        .executableTarget(name: "bench-zeromq", dependencies: ["ZeroMQ", "Runtime"], path: "Tools/BenchZeroMQ"),
        .executableTarget(name: "bench-tagging", dependencies: ["TaggingKit", "Runtime", "Schema"], path: "Tools/BenchTagging"),
        .executableTarget(name: "bench-analytics", dependencies: ["AnalyticsKit", "JSON", "Runtime", "SQLite", "Schema"],
                          path: "Tools/BenchAnalytics"),
        .executableTarget(name: "bench-scheduler",
                          dependencies: ["SchedulerKit", "Client", "Credentials", "JSON", "Majordomo", "Runtime", "Schema", "SQLite", "ZeroMQ"],
                          path: "Tools/BenchScheduler"),
        .executableTarget(name: "bench-badge", dependencies: ["BadgeKit", "Client", "Credentials", "Runtime", "Schema", "SQLite"],
                          path: "Tools/BenchBadge"),

        .executableTarget(name: "bench-hotpath", dependencies: ["TaggingKit", "Runtime", "Schema", "SQLite", "Credentials"],
                          path: "Tools/BenchHotPath"),

        // Tests.
        .testTarget(name: "PushBusTests",
                    dependencies: ["ZeroMQ", "SQLite", "JSON", "Schema", "Majordomo", "Runtime", "Client",
                                   "GatewayKit", "RegistrationKit", "TaggingKit", "ReplayKit", "AnalyticsKit",
                                   "SchedulerKit", "BadgeKit", "FuzzKit"],
                    path: "Tests/PushBusTests"),
    ]
)
