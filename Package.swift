// swift-tools-version: 6.2
import PackageDescription

/// Upcoming features every target builds with, so the whole package reads the same way.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierPlugins", targets: ["CourierPlugins"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .executable(name: "RefreshDemo", targets: ["RefreshDemo"]),
        .executable(name: "GitHubAPI", targets: ["GitHubAPI"]),
        .executable(name: "CourierBenchmarks", targets: ["CourierBenchmarks"]),
    ],
    targets: [
        .target(name: "Courier"),
        .target(name: "CourierPlugins", dependencies: ["Courier"], path: "Plugins", exclude: ["README.md"]),
        .target(name: "CourierTesting", dependencies: ["Courier"]),
        // Starts and drives the Python test server (Tests/Server/server.py); used by the
        // integration tests and by the RefreshDemo executable. Not a product.
        .target(name: "CourierTestServer", path: "Tests/Server", exclude: ["server.py", "README.md"]),
        // The test server's token endpoint as a target, written once for the integration tests,
        // the soak, the benchmarks and RefreshDemo. Not a product; unlike CourierTestServer
        // (which the CourierCurl package also compiles), it depends on Courier.
        .target(name: "CourierTestServerTargets", dependencies: ["Courier"], path: "Tests/ServerTargets"),
        // A bounded soak against the test server, shared by the integration tests and the
        // benchmark executable. Not a product.
        .target(
            name: "CourierSoak",
            dependencies: ["Courier", "CourierTesting", "CourierTestServer", "CourierTestServerTargets"],
            path: "Tests/Soak"),
        .executableTarget(
            name: "RefreshDemo",
            dependencies: ["Courier", "CourierTesting", "CourierTestServer", "CourierTestServerTargets"],
            path: "Examples/RefreshDemo"
        ),
        // The GitHub example: the API enum, models and client an app would write (a library, so
        // its tests can import it), the executable that runs it, and the app's tests.
        .target(
            name: "GitHubKit",
            dependencies: ["Courier"],
            path: "Examples/GitHubAPI/GitHubKit",
            resources: [.copy("SampleData")]
        ),
        .executableTarget(
            name: "GitHubAPI",
            dependencies: ["Courier", "CourierPlugins", "GitHubKit"],
            path: "Examples/GitHubAPI/GitHubAPI"
        ),
        .testTarget(name: "GitHubAPITests", dependencies: ["Courier", "CourierTesting", "GitHubKit"]),
        // `swift run -c release CourierBenchmarks` (or scripts/bench, which also starts nginx);
        // see BENCHMARKS.md. Not part of `swift test`.
        .executableTarget(
            name: "CourierBenchmarks",
            dependencies: [
                "Courier", "CourierPlugins", "CourierTesting", "CourierTestServer", "CourierTestServerTargets",
                "CourierSoak",
            ],
            path: "Benchmarks/CourierBenchmarks"
        ),
        .testTarget(name: "CourierTests", dependencies: ["Courier", "CourierTesting"]),
        .testTarget(name: "CourierPluginsTests", dependencies: ["Courier", "CourierPlugins", "CourierTesting"]),
        .testTarget(name: "CourierTestingTests", dependencies: ["Courier", "CourierTesting"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Courier", "CourierPlugins", "CourierTesting", "CourierTestServer", "CourierTestServerTargets",
                "CourierSoak",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
