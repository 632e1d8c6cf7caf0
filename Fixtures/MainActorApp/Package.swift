// swift-tools-version: 6.2
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which is whatever the clone is called.
let courier = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// What a new app target in Xcode 26 compiles with: Swift 6, main-actor isolation by default
// and "approachable concurrency".
let appSettings: [SwiftSetting] = [
    .defaultIsolation(MainActor.self),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
]

// A small app written the way Xcode 26 builds new apps, built (and run) by `.ci/run` with
// warnings failing the step: the README's code and Moya's patterns must compile here as
// written, with no `nonisolated`, `@preconcurrency` or `@unchecked Sendable`.
let package = Package(
    name: "MainActorApp",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(path: "../..")],
    targets: [
        // The app's code (a library, so that its tests can import it).
        .target(
            name: "MainActorApp",
            dependencies: [
                .product(name: "Courier", package: courier),
                .product(name: "CourierPlugins", package: courier),
                .product(name: "CourierTesting", package: courier),
            ],
            swiftSettings: appSettings),
        .executableTarget(
            name: "MainActorAppRun", dependencies: ["MainActorApp"], path: "Sources/MainActorAppRun",
            swiftSettings: appSettings),
        .testTarget(
            name: "MainActorAppTests",
            dependencies: [
                "MainActorApp",
                .product(name: "Courier", package: courier),
                .product(name: "CourierTesting", package: courier),
            ],
            swiftSettings: appSettings),
    ],
    swiftLanguageModes: [.v6]
)
