// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PushBus",
    products: [
        .executable(name: "gateway", targets: ["gateway"]),
        .executable(name: "registration", targets: ["registration"]),
        .executable(name: "badge", targets: ["badge"]),
        .executable(name: "pushctl", targets: ["pushctl"]),
        .executable(name: "pushbus", targets: ["pushbus"]),
    ],
    targets: [
        // C libraries from Debian, through module maps.
        .systemLibrary(name: "CZeroMQ", path: "Shared/CZeroMQ", pkgConfig: "libzmq",
                       providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Shared/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),

        // Shared layers: ZeroMQ → SQLite → schema → Majordomo → runtime / client.
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], path: "Shared/ZeroMQ"),
        .target(name: "SQLite", dependencies: ["CSQLite"], path: "Shared/SQLite"),
        .target(name: "Schema", path: "Shared/Schema"),
        .target(name: "Majordomo", dependencies: ["ZeroMQ"], path: "Shared/Majordomo"),
        .target(name: "Runtime", dependencies: ["ZeroMQ", "SQLite", "Schema", "Majordomo"],
                path: "Shared/Runtime"),
        .target(name: "Client", dependencies: ["ZeroMQ", "Schema", "Majordomo"], path: "Shared/Client"),

        // Services: a library with the logic, a thin executable.
        .target(name: "GatewayKit", dependencies: ["ZeroMQ", "Schema", "Majordomo", "Runtime"],
                path: "Services/GatewayKit"),
        .executableTarget(name: "gateway", dependencies: ["GatewayKit", "Runtime"], path: "Services/Gateway"),
        .target(name: "RegistrationKit", dependencies: ["SQLite", "Schema", "Runtime"],
                path: "Services/RegistrationKit"),
        .executableTarget(name: "registration", dependencies: ["RegistrationKit", "Runtime"],
                          path: "Services/Registration"),
        .target(name: "BadgeKit", dependencies: ["SQLite", "Schema", "Runtime"], path: "Services/BadgeKit"),
        .executableTarget(name: "badge", dependencies: ["BadgeKit", "Runtime"], path: "Services/Badge"),

        // Tools.
        .executableTarget(name: "pushctl", dependencies: ["Client", "Schema", "Runtime"], path: "Tools/PushCtl"),
        .executableTarget(name: "pushbus", dependencies: ["Client", "Runtime"], path: "Tools/Launcher"),
        .executableTarget(name: "bench-badge", dependencies: ["BadgeKit", "Client", "Runtime", "Schema", "SQLite"],
                          path: "Tools/BenchBadge"),

        // Tests.
        .testTarget(name: "PushBusTests",
                    dependencies: ["ZeroMQ", "SQLite", "Schema", "Majordomo", "Runtime", "Client",
                                   "GatewayKit", "RegistrationKit", "BadgeKit"],
                    path: "Tests/PushBusTests"),
    ]
)
