// swift-tools-version:6.1
import PackageDescription

// Hummingbird's own settings: explicit existentials, imports that document the public surface.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "FunctionHost",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "functionhost", targets: ["functionhost"]),
        .library(name: "FunctionHost", targets: ["FunctionHost"]),
        .library(name: "DataAPI", targets: ["DataAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
    ],
    targets: [
        // JavaScriptCore from libjavascriptcoregtk-4.1, plus the two exported time-limit functions
        // its public headers leave out.
        .systemLibrary(
            name: "CJavaScriptCore",
            pkgConfig: "javascriptcoregtk-4.1",
            providers: [.apt(["libjavascriptcoregtk-4.1-dev"])]
        ),
        // libvips from libvips-dev: thumbnails of stored images (`Thumbnails`), with the small C
        // wrappers its variadic calls need (Swift imports no C varargs).
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // Thumbnails: Qiniu-style `imageView` resizing with libvips, bounded in pixels, time and
        // concurrency, cached on disk; knows nothing of HTTP.
        .target(
            name: "Thumbnails",
            dependencies: [
                "CVips",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // zlib from zlib1g-dev: gzip decompression of export archives.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // JSONValue: the value every module passes around, with its parser and writer. Depends on
        // nothing, so the sandbox can speak JSON without linking the data layer.
        .target(
            name: "JSON",
            swiftSettings: swiftSettings
        ),
        // What running a user's call needs, whichever module runs it (Hooks for hooks, FunctionHost
        // for functions): one watch that cancels calls past their deadline, and loggers tagged per
        // call.
        .target(
            name: "CallSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Sandbox",
            dependencies: ["CJavaScriptCore", "JSON"],
            // The sandbox's own JavaScript, compiled into the binary as byte arrays
            // (`PackageResources`): `functionhost` is deployed as one file, with no bundle beside it.
            resources: [.embedInCode("JavaScript")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DataAPI",
            dependencies: [
                "CZlib",
                "JSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Hook registry, dispatch around DataAPI's operations and LeanEngine's hook names; knows
        // nothing of JavaScript or HTTP.
        .target(
            name: "Hooks",
            dependencies: [
                "CallSupport",
                "DataAPI",
                "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // LeanCloud's realtime commands as protobuf messages (generated once from
        // `realtime.proto` beside them and committed: a build-time plugin costs minutes per CI run).
        .target(
            name: "RealtimeProtocol",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
            exclude: ["realtime.proto"],
            swiftSettings: swiftSettings
        ),
        // LiveQuery: subscriptions to queries, matched against every committed write heard on a
        // change feed and delivered as each subscriber's view; knows nothing of sockets or HTTP.
        .target(
            name: "LiveQuery",
            dependencies: [
                "DataAPI",
                "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The change feed of several hosts on one PostgreSQL database (a table they all write and
        // follow): LiveQuery's `ChangeFeed` over the driver, kept out of LiveQuery, which names
        // no SQL engine (DESIGN.md § Layout).
        .target(
            name: "LiveQueryPostgres",
            dependencies: [
                "DataAPI",
                "JSON",
                "LiveQuery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // The Cloud Queue: tasks that call cloud functions later, with retries, kept in the
        // database so every host on it shares them; knows nothing of HTTP or JavaScript.
        .target(
            name: "CloudQueue",
            dependencies: [
                "DataAPI",
                "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Mail over SMTP (SwiftNIO and NIOSSL: plain, STARTTLS, TLS), MIME, and the operator's
        // mail templates; a `MessageSender` of DataAPI's, knowing nothing of HTTP.
        .target(
            name: "Mail",
            dependencies: [
                "DataAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // LeanCloud's leaderboards: boards, statistics and ranks kept through the data service, so
        // they work alike on SQLite and on PostgreSQL shared by several hosts; knows nothing of HTTP.
        .target(
            name: "Leaderboards",
            dependencies: [
                "DataAPI",
                "JSON",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // File content in an S3-compatible bucket: DataAPI's file store over SigV4-signed requests
        // (swift-crypto) sent with async-http-client; knows nothing of the host's routes.
        .target(
            name: "S3Storage",
            dependencies: [
                "DataAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FunctionHost",
            dependencies: [
                "CallSupport",
                "Mail",
                "CloudQueue",
                "Leaderboards",
                "DataAPI",
                "JSON",
                "Hooks",
                "LiveQuery",
                "LiveQueryPostgres",
                "RealtimeProtocol",
                "S3Storage",
                "Sandbox",
                "Thumbnails",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                // The realtime endpoint's close codes.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // The HTTP/1 server's builder, to add the connection limits to each connection.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // HTTP/1 request parts as Hummingbird's pipeline carries them (ConnectionGuard).
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The web console's page, script and style, compiled into the binary as the sandbox's
            // JavaScript is: `functionhost` is one file, and the console needs no build step.
            resources: [.embedInCode("Console/Assets")],
            swiftSettings: swiftSettings
        ),
        // The user's Swift cloud functions, compiled into the host. They see the host's public
        // API only: its `package` declarations are the host's own modules' business.
        .target(
            name: "Functions",
            dependencies: ["FunctionHost"],
            path: "functions/swift",
            packageAccess: false,
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "functionhost",
            dependencies: [
                // The queue settings its options set.
                "CloudQueue",
                "FunctionHost",
                "Functions",
                "JSON",
                // The LiveQuery limits its options set.
                "LiveQuery",
                // The SMTP settings its options set.
                "Mail",
                // The bucket settings its file options set.
                "S3Storage",
                "Sandbox",
                // The thumbnails' slots its options set.
                "Thumbnails",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The deploy, versions, invoke and env client subcommands talk to a running server.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The ceiling every benchmark ratio is taken against: a bare Hummingbird "hello" route.
        .executableTarget(
            name: "BareServer",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/BareServer",
            swiftSettings: swiftSettings
        ),
        // The floors of issue 32's targets: each target's least work on the same stack (`make bench`).
        .executableTarget(
            name: "FloorServer",
            dependencies: [
                "CJavaScriptCore", "DataAPI", "JSON",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/FloorServer",
            swiftSettings: swiftSettings
        ),
        // LiveQuery's load: a thousand realtime clients hearing REST writes (`make bench`).
        .executableTarget(
            name: "LiveQueryLoad",
            dependencies: [
                "RealtimeProtocol",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Benchmarks/LiveQueryLoad",
            swiftSettings: swiftSettings
        ),
        // What the test targets share: the server run in process (or on a loopback socket where
        // one is the point), its client and answers, the test databases, fixtures and helpers.
        .target(
            name: "TestSupport",
            dependencies: [
                "CloudQueue",
                // Test images made and decoded with libvips itself (`ImageFixture`).
                "CVips",
                "DataAPI",
                "FunctionHost",
                "JSON",
                "LiveQuery",
                // The S3 test server's bucket, as the host's settings name it.
                "S3Storage",
                "Thumbnails",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ThumbnailsTests",
            dependencies: ["CVips", "TestSupport", "Thumbnails"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "S3StorageTests",
            dependencies: [
                "DataAPI", "S3Storage", "TestSupport",
                // The whole file's MD5, to check the one computed as it streamed.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CallSupportTests",
            dependencies: ["CallSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JSONTests",
            dependencies: ["JSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxTests",
            dependencies: ["JSON", "Sandbox"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HooksTests",
            dependencies: ["Hooks", "JSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DataAPITests",
            dependencies: ["DataAPI", "JSON", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CloudQueueTests",
            dependencies: [
                "CloudQueue", "DataAPI", "JSON", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LeaderboardsTests",
            dependencies: [
                "DataAPI", "JSON", "Leaderboards", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LiveQueryTests",
            dependencies: [
                "DataAPI", "JSON", "LiveQuery", "LiveQueryPostgres", "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FunctionHostTests",
            dependencies: [
                "CallSupport",
                "CloudQueue",
                "FunctionHost",
                // The serve command's options, parsed as the command line gives them.
                "functionhost",
                "Functions",
                "JSON",
                "LiveQuery",
                "LiveQueryPostgres",
                "Mail",
                "RealtimeProtocol",
                "S3Storage",
                "Sandbox",
                "TestSupport",
                "Thumbnails",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // A real WebSocket client for the realtime endpoint's tests.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                // Streams the 200 MB upload of the files memory test (already built for the server).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // Signs Sign in with Apple identity tokens with a key of the tests' own, and
                // recomputes the verification codes' HMAC.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
