// swift-tools-version: 6.0
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which is whatever the clone is called.
let courier = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// A Moya-style app in Swift 5 language mode, built by `.ci/run` with warnings failing the
// step: the README's and the migration guide's code must compile here without a warning.
let package = Package(
    name: "Swift5App",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(
            name: "Swift5App",
            dependencies: [
                .product(name: "Courier", package: courier),
                .product(name: "CourierPlugins", package: courier),
            ])
    ],
    swiftLanguageModes: [.v5]
)
