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
        .target(
            name: "CourierTestServer", path: "Tests/Server",
            exclude: [
                "server.py", "dpop.py", "h2_front.py", "certificate_faults.py", "refusing_proxy.py", "h2_goaway.py",
                "oauth", "idle_close_forwarder.py", "README.md",
            ]),
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
        // One process of the cross-process integration tests, which launch several of it
        // against the test server (Tests/IntegrationTests/Auth/CrossProcess*). Not a product.
        .executableTarget(
            name: "CourierCrossProcessChild",
            dependencies: ["Courier", "CourierTestServerTargets"],
            path: "Tests/CrossProcessChild"
        ),
        // A child process of the integration tests that sends one request in an environment the
        // test sets (a proxy), never the test process's own. Not a product.
        .executableTarget(name: "CourierWireProbe", dependencies: ["Courier"], path: "Tests/WireProbe"),
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

// MARK: - CurlTransport, behind the `CurlTransport` trait (off by default)
//
// `CourierCurl` is a product of this package, so an app that depends on the repository by URL
// can use it (SwiftPM reads only the root manifest of a dependency, and refuses a local one
// inside it): `.package(url: …, from: …, traits: ["CurlTransport"])` (tools version 6.1+).
// Traits gate dependencies and compile conditions, not targets: with the trait off, no target
// depends on the system library `CCurl`, so SwiftPM never looks for libcurl (no pkg-config, no
// warning), and every source of the CourierCurl targets sits in `#if CurlTransport`, so they
// compile to empty modules with the toolchain alone.
let curlTrait = "CurlTransport"
let whenCurl = TargetDependencyCondition.when(traits: [curlTrait])
package.traits.insert(
    .trait(
        name: curlTrait,
        description: "CurlTransport (product CourierCurl), a libcurl transport; needs libcurl's headers."
    ))
package.products.append(.library(name: "CourierCurl", targets: ["CourierCurl"]))
let curlTargets: [Target] = [
    // libcurl's headers and library, found with pkg-config; shim.h wraps the variadic functions.
    .systemLibrary(
        name: "CCurl",
        path: "Transports/CourierCurl/Sources/CCurl",
        pkgConfig: "libcurl",
        providers: [.apt(["libcurl4-openssl-dev"]), .yum(["libcurl-devel"]), .brew(["curl"])]
    ),
    .target(
        name: "CourierCurl",
        dependencies: ["Courier", .target(name: "CCurl", condition: whenCurl)],
        path: "Transports/CourierCurl/Sources/CourierCurl"
    ),
    // What only CurlTransport does (pinning, HTTP/2, its loop, its limits); the shared transport
    // suites run against it from IntegrationTests.
    .testTarget(
        name: "CourierCurlTests",
        dependencies: ["Courier", "CourierTestServer", .target(name: "CourierCurl", condition: whenCurl)],
        path: "Transports/CourierCurl/Tests/CourierCurlTests",
        exclude: ["tls_server.py", "hostile_redirect.py"]
    ),
    // A child process of CourierCurlTests that lowers its own descriptor limit (never the
    // test process's) and sends many requests at once. Not a product.
    .executableTarget(
        name: "CurlDescriptorProbe",
        dependencies: ["Courier", .target(name: "CourierCurl", condition: whenCurl)],
        path: "Transports/CourierCurl/Tests/CurlDescriptorProbe"
    ),
    // `scripts/bench` runs it after the root benchmark (see BENCHMARKS.md). Not part of `swift test`.
    .executableTarget(
        name: "CourierCurlBenchmarks",
        dependencies: [
            "Courier", .target(name: "CourierCurl", condition: whenCurl), .target(name: "CCurl", condition: whenCurl),
        ],
        path: "Transports/CourierCurl/Benchmarks/CourierCurlBenchmarks"
    ),
]
for target in curlTargets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
package.targets += curlTargets
// The shared transport suites (Tests/IntegrationTests/Transport) run against CurlTransport too
// when the trait is on (TransportUnderTest lists it).
package.targets.first { $0.name == "IntegrationTests" }?.dependencies.append(
    .target(name: "CourierCurl", condition: whenCurl))
package.targets.first { $0.name == "CourierWireProbe" }?.dependencies.append(
    .target(name: "CourierCurl", condition: whenCurl))
// The benchmark's idle-close scenario compares CurlTransport with URLSessionTransport when the
// trait is on (scripts/bench).
package.targets.first { $0.name == "CourierBenchmarks" }?.dependencies.append(
    .target(name: "CourierCurl", condition: whenCurl))

// MARK: - OpenSSLP256Key, behind the `OpenSSLSigning` trait (off by default)
//
// A DPoP signing key on OpenSSL 3's libcrypto, for Linux (Apple platforms use CryptoKit, in
// Courier itself). Gated exactly as CurlTransport above: with the trait off no target depends on
// the system library `COpenSSL`, so SwiftPM never looks for libcrypto, and every source of
// CourierOpenSSL and its tests sits in `#if OpenSSLSigning`, so they compile to empty modules.
let openSSLTrait = "OpenSSLSigning"
let whenOpenSSL = TargetDependencyCondition.when(traits: [openSSLTrait])
package.traits.insert(
    .trait(
        name: openSSLTrait,
        description: "OpenSSLP256Key (product CourierOpenSSL), a DPoP key on libcrypto; needs OpenSSL 3's headers."
    ))
package.products.append(.library(name: "CourierOpenSSL", targets: ["CourierOpenSSL"]))
let openSSLTargets: [Target] = [
    // libcrypto's headers and library, found with pkg-config; shim.h wraps what Swift cannot call.
    .systemLibrary(
        name: "COpenSSL",
        path: "Sources/COpenSSL",
        pkgConfig: "libcrypto",
        providers: [.apt(["libssl-dev"]), .yum(["openssl-devel"]), .brew(["openssl@3"])]
    ),
    .target(
        name: "CourierOpenSSL",
        dependencies: ["Courier", .target(name: "COpenSSL", condition: whenOpenSSL)]
    ),
    // Proofs signed with OpenSSLP256Key, verified by Python's `cryptography` (verify_dpop.py).
    .testTarget(
        name: "CourierOpenSSLTests",
        dependencies: [
            "Courier", "CourierTesting", "CourierTestServer", "CourierTestServerTargets",
            .target(name: "CourierOpenSSL", condition: whenOpenSSL),
            // With both traits, the DPoP redirect and nonce suites run on CurlTransport too.
            .target(name: "CourierCurl", condition: whenCurl),
        ],
        exclude: ["verify_dpop.py"]
    ),
]
// The cross-process child signs with DPoP (`--dpop`) when the trait is on: CourierOpenSSLTests
// runs several of it on one token file.
package.targets.first { $0.name == "CourierCrossProcessChild" }?.dependencies.append(
    .target(name: "CourierOpenSSL", condition: whenOpenSSL))
// The benchmark's DPoP scenario signs with OpenSSLP256Key when the trait is on (scripts/bench).
package.targets.first { $0.name == "CourierBenchmarks" }?.dependencies.append(
    .target(name: "CourierOpenSSL", condition: whenOpenSSL))
for target in openSSLTargets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
package.targets += openSSLTargets

// MARK: - PostgresTokenStore, behind the `PostgreSQLStore` trait (off by default)
//
// A token store that a fleet of processes on many machines shares through PostgreSQL, on
// libpq (the PostgreSQL project's client library). Gated exactly as CurlTransport above: with
// the trait off no target depends on the system library `CLibPQ`, so SwiftPM never looks for
// libpq, and every source of CourierPostgres and its tests sits in `#if PostgreSQLStore`, so
// they compile to empty modules with the toolchain alone.
let postgresTrait = "PostgreSQLStore"
let whenPostgres = TargetDependencyCondition.when(traits: [postgresTrait])
package.traits.insert(
    .trait(
        name: postgresTrait,
        description: "PostgresTokenStore (product CourierPostgres), a token store for a fleet; needs libpq's headers."
    ))
package.products.append(.library(name: "CourierPostgres", targets: ["CourierPostgres"]))
let postgresTargets: [Target] = [
    // libpq's headers and library, found with pkg-config.
    .systemLibrary(
        name: "CLibPQ",
        path: "Sources/CLibPQ",
        pkgConfig: "libpq",
        providers: [.apt(["libpq-dev"]), .yum(["libpq-devel"]), .brew(["libpq"])]
    ),
    .target(
        name: "CourierPostgres",
        dependencies: ["Courier", .target(name: "CLibPQ", condition: whenPostgres)],
        exclude: ["courier_tokens.sql"]
    ),
    // Against a real PostgreSQL that the suite starts (initdb + pg_ctl) on a loopback port.
    .testTarget(
        name: "CourierPostgresTests",
        dependencies: [
            "Courier", "CourierTesting", "CourierTestServer", .target(name: "CourierPostgres", condition: whenPostgres),
            .target(name: "CLibPQ", condition: whenPostgres),
        ]
    ),
]
for target in postgresTargets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
package.targets += postgresTargets
// The fleet test (CourierPostgresTests) runs CourierCrossProcessChild processes on a
// PostgresTokenStore (`--postgres`); the benchmark's fleet_storm scenario does too.
package.targets.first { $0.name == "CourierCrossProcessChild" }?.dependencies.append(
    .target(name: "CourierPostgres", condition: whenPostgres))
package.targets.first { $0.name == "CourierBenchmarks" }?.dependencies.append(
    .target(name: "CourierPostgres", condition: whenPostgres))
