// swift-tools-version: 6.0
import PackageDescription

/// The same upcoming features as the root package, so both read the same way.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The tests import the test server as `CourierTestServer`, its name in the root package.
let testServerAlias: [SwiftSetting] = [.unsafeFlags(["-module-alias", "CourierTestServer=CurlTestServer"])]

let package = Package(
    name: "CourierCurl",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "CourierCurl", targets: ["CourierCurl"]),
        .executable(name: "CourierCurlBenchmarks", targets: ["CourierCurlBenchmarks"]),
    ],
    dependencies: [
        .package(name: "Courier", path: "../..")
    ],
    targets: [
        // libcurl's headers and library, found with pkg-config; shim.h wraps the variadic
        // functions in typed ones.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .target(
            name: "CourierCurl",
            dependencies: ["CCurl", .product(name: "Courier", package: "Courier")]
        ),
        // `scripts/bench` runs it after the root benchmark (see BENCHMARKS.md). Not part of
        // `swift test`.
        .executableTarget(
            name: "CourierCurlBenchmarks",
            dependencies: ["CourierCurl", .product(name: "Courier", package: "Courier")],
            path: "Benchmarks/CourierCurlBenchmarks"
        ),
        // The root package's test server (Tests/CourierTestServer links to ../../../Tests/Server,
        // so server.py is found beside its sources). Not a product. Target names are unique
        // across packages, so it is named CurlTestServer here, and the tests, which import
        // CourierTestServer, see it under that name (-module-alias).
        .target(name: "CurlTestServer", path: "Tests/CourierTestServer", exclude: ["server.py", "README.md"]),
        // The root package's transport-level integration tests (linked, not copied), run
        // against both transports by this package's own TransportUnderTest.
        .testTarget(
            name: "CurlIntegrationTests",
            dependencies: [
                "CourierCurl", "CurlTestServer", .product(name: "Courier", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
            ],
            swiftSettings: testServerAlias
        ),
        // What only CurlTransport does: pinning, connection reuse, its loop thread.
        .testTarget(
            name: "CourierCurlTests",
            dependencies: ["CourierCurl", "CurlTestServer", .product(name: "Courier", package: "Courier")],
            exclude: ["tls_server.py", "hostile_redirect.py"],
            swiftSettings: testServerAlias
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
