// swift-tools-version: 6.1
// A Linux service that adopts CurlTransport the way a user outside this repository does: it
// depends on the repository by its git URL with the `CurlTransport` trait on (package traits
// need tools version 6.1 or later in the consumer's manifest) and uses the `CourierCurl` product.
//
// `.ci/run` pushes the commit under test into `.repository/Courier.git` beside this file (a bare git
// repository, so the run is offline) and builds and runs this package against the test server.
import PackageDescription

let package = Package(
    name: "CurlConsumer",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(
            url: "file://\(Context.packageDirectory)/.repository/Courier.git", branch: "main", traits: ["CurlTransport"]
        )
    ],
    targets: [
        .executableTarget(
            name: "CurlConsumer",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierCurl", package: "Courier"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
