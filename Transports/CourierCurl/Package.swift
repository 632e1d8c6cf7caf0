// swift-tools-version: 6.0
import PackageDescription

/// The same upcoming features as the root package, so both read the same way.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "CourierCurl",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "CourierCurl", targets: ["CourierCurl"])
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
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
