// swift-tools-version:6.0
import PackageDescription

// The modules every request passes through, built with cross-module optimization so that generic
// code and small functions of one module are specialised and inlined into another (issue 20).
// Measured side by side (Tools/bench-allocations.sh, two runs each, alternating): the tagging mix
// went from 6,227 and 5,514 to 6,823 and 6,219 commands/s, the CPU per command of client, gateway,
// registration and tagging together from 222 and 267 µs to 209 and 235 µs; allocations unchanged.
// Release builds only: debug builds and tests are unaffected.
//
// The same modules' release builds drop the run-time check of exclusive access (a class property
// or global read while it is being written traps). Counted by callgrind on a tagging replay, the
// check (swift_beginAccess, its access set and thread-local lookups) was ~5 % of the tagging
// worker's instructions and ~4 % of the gateway's, on every class property a request touches
// (the statement cache, the encoder's fields, the store's levels). It is safe to drop there
// because it stays on where the code is exercised: debug builds, and so every test run, keep it,
// and the compiler still checks what it can prove statically in every build.
let hotPath: [SwiftSetting] = [
    .unsafeFlags(["-cross-module-optimization", "-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "PushBus",
    products: [
        .executable(name: "gateway", targets: ["gateway"]),
        .executable(name: "registration", targets: ["registration"]),
        .executable(name: "tagging", targets: ["tagging"]),
        .executable(name: "analytics", targets: ["analytics"]),
        .executable(name: "scheduler", targets: ["scheduler"]),
        .executable(name: "badge", targets: ["badge"]),
        .executable(name: "push", targets: ["push"]),
        .executable(name: "apns", targets: ["apns"]),
        .executable(name: "api", targets: ["api"]),
        .executable(name: "channel", targets: ["channel"]),
        .executable(name: "pushctl", targets: ["pushctl"]),
        .executable(name: "pushbus", targets: ["pushbus"]),
        .executable(name: "pushbus-replay", targets: ["pushbus-replay"]),
        .executable(name: "pushbus-fuzz", targets: ["pushbus-fuzz"]),
        .executable(name: "pushbus-backup", targets: ["pushbus-backup"]),
        .executable(name: "pushbus-device", targets: ["pushbus-device"]),
        // The device SDK an app links: Foundation and a crypto primitive only (CryptoKit on Apple
        // platforms; on Linux OpenSSL's libcrypto, and libssl for its own TLS socket).
        .library(name: "PushBusSDK", targets: ["PushBusSDK"]),
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
        .systemLibrary(name: "CNGHTTP2", path: "Shared/CNGHTTP2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        // OpenSSL's libssl (TLS for the HTTP/2 client), with epoll and eventfd for its loop.
        .systemLibrary(name: "CTLS", path: "Shared/CTLS", pkgConfig: "libssl",
                       providers: [.apt(["libssl-dev"])]),
        // Linux calls Glibc's module leaves out (eventfd, epoll).
        .systemLibrary(name: "CSystem", path: "Shared/CSystem"),
        // tcmalloc, which every executable allocates through (`Allocator`, linked by Runtime).
        .systemLibrary(name: "CTCMalloc", path: "Shared/CTCMalloc", pkgConfig: "libtcmalloc_minimal",
                       providers: [.apt(["libgoogle-perftools-dev"])]),

        // Shared layers: ZeroMQ → SQLite → JSON → schema → Majordomo → runtime → bus → events → worker; client.
        // Two bounded dictionaries every cache and expiring map is made of.
        .target(name: "Caches", path: "Shared/Caches", swiftSettings: hotPath),
        // Threads named for the kernel (top -H, perf), beneath SQLite's checkpointer and the runtime; Foundation only.
        .target(name: "Threads", dependencies: ["CSystem"], path: "Shared/Threads"),
        // Wire time (RFC 3339, the Gregorian calendar) beneath the runtime, on Foundation only.
        .target(name: "WireTime", path: "Shared/WireTime"),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], path: "Shared/ZeroMQ", swiftSettings: hotPath),
        .target(name: "SQLite", dependencies: ["CSQLite", "Caches", "Threads"], path: "Shared/SQLite", swiftSettings: hotPath),
        // The JSON codec: parser, tree, Decoder and Encoder, writer (Foundation only).
        .target(name: "JSON", path: "Shared/JSON", swiftSettings: hotPath),
        // The characters of a tag or alias: one table for the server and the device SDK, on nothing.
        .target(name: "TagCharacters", path: "Shared/TagCharacters", swiftSettings: hotPath),
        .target(name: "Schema", dependencies: ["JSON", "WireTime", "TagCharacters"], path: "Shared/Schema", swiftSettings: hotPath),
        .target(name: "Majordomo", dependencies: ["ZeroMQ"], path: "Shared/Majordomo", swiftSettings: hotPath),
        // Process basics (flags, logging, clock, signals, shard layout, the allocator): everything links it, none of it touches SQLite.
        .target(name: "Runtime", dependencies: ["CSystem", "CTCMalloc", "Caches", "Threads", "ZeroMQ", "Schema", "Credentials", "WireTime"], path: "Shared/Runtime", swiftSettings: hotPath),
        // What the gateway and the workers share about the event bus: event envelopes, CURVE, metrics.
        .target(name: "Bus", dependencies: ["ZeroMQ", "JSON", "Schema", "Credentials", "Runtime"], path: "Shared/Bus", swiftSettings: hotPath),
        // A service's events: the outbox, following the bus and catching up from publishers.
        .target(name: "Events", dependencies: ["ZeroMQ", "SQLite", "JSON", "Schema", "Credentials", "Client", "Runtime", "Bus", "WireTime"],
                path: "Shared/Events", swiftSettings: hotPath),
        // The worker: the MDP loop that owns dispatch and the transaction, and what a handler plugs into.
        .target(name: "Worker", dependencies: ["ZeroMQ", "SQLite", "JSON", "Schema", "Majordomo", "Credentials", "Runtime", "Bus", "Events", "Threads", "Client"],
                path: "Shared/Worker", swiftSettings: hotPath),
        .target(name: "Credentials", dependencies: ["CCrypto", "Caches"], path: "Shared/Credentials", swiftSettings: hotPath),
        .target(name: "Client", dependencies: ["Caches", "ZeroMQ", "JSON", "Schema", "Majordomo", "Credentials", "Signing", "Runtime", "Threads"],
                path: "Shared/Client", swiftSettings: hotPath),
        // The one HTTP/1.1 server (REST API, device edge, /metrics, the WebSocket handshake) on libmicrohttpd.
        .target(name: "HTTP", dependencies: ["CMicroHTTPD", "Threads"], path: "Shared/HTTP"),
        // An HTTP/2 client on libnghttp2 and OpenSSL: one epoll loop thread, many streams on few kept connections (APNs).
        .target(name: "HTTP2Client", dependencies: ["CNGHTTP2", "CTLS", "Threads"], path: "Shared/HTTP2", swiftSettings: hotPath),
        // ES256 JSON Web Tokens on libcrypto: the APNs provider token.
        .target(name: "JWT", dependencies: ["CCrypto"], path: "Shared/JWT"),
        // Who may sign which command: the gateway checks by it and the client signs by it.
        .target(name: "Signing", dependencies: ["Schema", "Credentials"], path: "Shared/Signing", swiftSettings: hotPath),

        // Services: a library with the logic, a thin executable.
        // The gateway holds no data: it links neither SQLite nor the worker.
        .target(name: "GatewayKit", dependencies: ["Caches", "ZeroMQ", "JSON", "Schema", "Majordomo", "Runtime", "Bus", "Credentials", "Signing",
                                                   "HTTP"],
                path: "Services/GatewayKit", swiftSettings: hotPath),
        .executableTarget(name: "gateway", dependencies: ["GatewayKit", "Runtime"], path: "Services/Gateway"),
        .target(name: "RegistrationKit", dependencies: ["SQLite", "Schema", "Runtime", "Bus", "Events", "Worker", "Credentials", "WireTime"],
                path: "Services/RegistrationKit"),
        .executableTarget(name: "registration", dependencies: ["RegistrationKit", "Runtime", "Worker", "Credentials"],
                          path: "Services/Registration"),
        .target(name: "AnalyticsKit", dependencies: ["SQLite", "JSON", "Schema", "Runtime", "Bus", "Events", "Worker", "Credentials", "WireTime",
                                                    "Client", "ZeroMQ"],
                path: "Services/AnalyticsKit"),
        .executableTarget(name: "analytics", dependencies: ["AnalyticsKit", "Runtime", "Worker", "Credentials"],
                          path: "Services/Analytics"),

        .target(name: "TaggingKit", dependencies: ["Caches", "SQLite", "JSON", "Schema", "Runtime", "Bus", "Events", "Worker", "WireTime"], path: "Services/TaggingKit", swiftSettings: hotPath),
        .executableTarget(name: "tagging", dependencies: ["TaggingKit", "Runtime", "Worker"], path: "Services/Tagging"),
        .target(name: "SchedulerKit", dependencies: ["SQLite", "JSON", "Schema", "Runtime", "Bus", "Events", "Worker", "WireTime", "Client",
                                                    "Credentials", "ZeroMQ"],
                path: "Services/SchedulerKit"),
        .executableTarget(name: "scheduler", dependencies: ["SchedulerKit", "Runtime", "Worker", "Credentials", "ZeroMQ"],
                          path: "Services/Scheduler"),
        .target(name: "BadgeKit", dependencies: ["SQLite", "Schema", "Runtime", "Bus", "Events", "Worker"], path: "Services/BadgeKit"),
        .executableTarget(name: "badge", dependencies: ["BadgeKit", "Runtime", "Worker"], path: "Services/Badge"),

        // The sending path: push owns messages and their fan-out; apns is a stateless HTTP/2 sender.
        .target(name: "PushKit", dependencies: ["Caches", "SQLite", "JSON", "Schema", "Runtime", "Bus", "Events", "Worker", "Client",
                                                "Credentials", "JWT", "ZeroMQ", "WireTime"],
                path: "Services/PushKit"),
        .executableTarget(name: "push", dependencies: ["PushKit", "Client", "Runtime", "Worker", "Credentials", "ZeroMQ"], path: "Services/Push"),
        .target(name: "ApnsKit", dependencies: ["Caches", "JSON", "Schema", "Runtime", "Worker", "Credentials", "JWT", "HTTP2Client"],
                path: "Services/ApnsKit"),
        .executableTarget(name: "apns", dependencies: ["ApnsKit", "Runtime", "Worker"], path: "Services/Apns"),

        // The REST API (EngageLab v4, JPush v3): HTTP on libmicrohttpd, each call signed bus commands.
        .target(name: "ApiKit", dependencies: ["Client", "Credentials", "JSON", "Majordomo", "Schema", "Signing", "Runtime", "ZeroMQ", "HTTP"],
                path: "Services/ApiKit"),
        // The console's pages (Services/Api/Console) are read from disk at start (--console-dir), not compiled.
        .executableTarget(name: "api", dependencies: ["ApiKit", "Credentials", "Runtime", "ZeroMQ", "HTTP"], path: "Services/Api",
                          exclude: ["Console"]),

        // The device channel: WebSocket connections (libmicrohttpd's upgrade, our own frame codec),
        // each device's messages until acknowledged, pages and presence.
        .target(name: "WebSocket", dependencies: ["CMicroHTTPD", "CCrypto", "HTTP", "Threads"], path: "Shared/WebSocket"),
        .target(name: "ChannelKit", dependencies: ["Bus", "Caches", "Client", "Credentials", "JSON", "HTTP", "Majordomo", "Runtime", "Schema", "Signing", "SQLite",
                                                   "WebSocket", "WireTime", "Worker", "ZeroMQ"],
                path: "Services/ChannelKit"),
        .executableTarget(name: "channel", dependencies: ["ChannelKit", "Credentials", "Runtime", "Worker", "ZeroMQ"], path: "Services/Channel"),

        // Tools.
        .executableTarget(name: "pushctl", dependencies: ["Client", "JSON", "Schema", "Runtime", "Credentials"], path: "Tools/PushCtl"),
        .executableTarget(name: "pushbus", dependencies: ["Client", "Credentials", "Runtime"], path: "Tools/Launcher"),
        .target(name: "ReplayKit", dependencies: ["ZeroMQ", "JSON", "Schema", "Majordomo", "Runtime", "Client", "Credentials"],
                path: "Tools/ReplayKit", swiftSettings: hotPath),
        .target(name: "PushBusSDK", dependencies: ["TagCharacters", .target(name: "CCrypto", condition: .when(platforms: [.linux])),
                                                   .target(name: "CTLS", condition: .when(platforms: [.linux]))],
                // Swift 5 mode: the seeds' API is completion handlers called on the app's queue, as
                // apps written against MTPushService expect, not Sendable closures.
                path: "SDK/PushBusSDK", swiftSettings: [.swiftLanguageMode(.v5)]),
        // A simulated phone on the SDK, for operators and tests.
        .executableTarget(name: "pushbus-device", dependencies: ["PushBusSDK"], path: "SDK/Device", swiftSettings: [.swiftLanguageMode(.v5)]),
        // N SDK instances in one process against a running stack (Tools/bench-sdk.sh).
        .executableTarget(name: "bench-sdk", dependencies: ["PushBusSDK"], path: "Tools/BenchSDK", swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "pushbus-replay", dependencies: ["ReplayKit", "Runtime", "Schema", "Credentials"], path: "Tools/Replay"),
        .executableTarget(name: "pushbus-backup", dependencies: ["Credentials", "SQLite", "Runtime"], path: "Tools/Backup"),
        .target(name: "FuzzKit", dependencies: ["ZeroMQ", "JSON", "Schema", "Majordomo", "ReplayKit", "Client", "Credentials"],
                path: "Tools/FuzzKit"),
        .executableTarget(name: "pushbus-fuzz", dependencies: ["FuzzKit", "Runtime", "Schema", "Credentials"], path: "Tools/Fuzz"),

        // Benchmarks: executables, never tests (`make bench`).
        // The HTTP/2 transport and provider token against a local stand-in (nghttpd): rate, one request, a token.
        .executableTarget(name: "h2probe", dependencies: ["HTTP2Client", "JWT", "Runtime"], path: "Tools/H2Probe"),
        .executableTarget(name: "bench-zeromq", dependencies: ["ZeroMQ", "Runtime"], path: "Tools/BenchZeroMQ"),
        .executableTarget(name: "bench-tagging", dependencies: ["TaggingKit", "Runtime", "Bus", "Events", "Worker", "Schema"], path: "Tools/BenchTagging"),
        .executableTarget(name: "bench-analytics", dependencies: ["AnalyticsKit", "Runtime", "Bus", "Events", "Worker", "SQLite", "JSON", "Schema", "WireTime"],
                          path: "Tools/BenchAnalytics"),
        .executableTarget(name: "bench-scheduler",
                          dependencies: ["SchedulerKit", "Client", "Credentials", "Majordomo", "Runtime", "Bus", "Events", "Worker", "JSON", "Schema", "SQLite", "ZeroMQ", "WireTime"],
                          path: "Tools/BenchScheduler"),
        .executableTarget(name: "bench-calendar", dependencies: ["SchedulerKit", "ReplayKit", "Runtime", "Schema"],
                          path: "Tools/BenchCalendar"),
        .executableTarget(name: "bench-badge", dependencies: ["BadgeKit", "Client", "Credentials", "Runtime", "Bus", "Events", "Worker", "Schema", "SQLite", "WireTime"],
                          path: "Tools/BenchBadge"),

        // The device channel's load client: thousands of WebSocket devices on one epoll loop.
        .executableTarget(name: "bench-channel", dependencies: ["CMicroHTTPD", "Credentials", "Runtime"], path: "Tools/BenchChannel"),
        .executableTarget(name: "bench-hotpath", dependencies: ["TaggingKit", "Runtime", "Bus", "Events", "Worker", "Schema", "SQLite", "Credentials"],
                          path: "Tools/BenchHotPath"),

        // Tests.
        .testTarget(name: "PushBusTests",
                    dependencies: ["Caches", "ZeroMQ", "SQLite", "JSON", "Schema", "Majordomo", "Runtime", "Bus", "Events", "Worker", "Client", "Signing",
                                   "GatewayKit", "RegistrationKit", "TaggingKit", "ReplayKit", "AnalyticsKit",
                                   "SchedulerKit", "BadgeKit", "FuzzKit", "WireTime", "PushKit", "ApnsKit", "ApiKit", "ChannelKit", "WebSocket", "JWT", "HTTP2Client", "Credentials", "HTTP", "PushBusSDK"],
                    path: "Tests/PushBusTests"),
    ]
)
