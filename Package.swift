// swift-tools-version:6.0
// Peggle Gym: a deterministic Peggle simulator, RL environment and level-difficulty rater.
import PackageDescription

let package = Package(
    name: "PeggleGym",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "peggle", targets: ["peggle"]),
        .library(name: "PegglePhysics", targets: ["PegglePhysics"]),
        .library(name: "PeggleGame", targets: ["PeggleGame"]),
        .library(name: "PeggleEnv", targets: ["PeggleEnv"]),
        .library(name: "PeggleAnalytics", targets: ["PeggleAnalytics"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Physics: continuous collision of balls against a static obstacle store. Standard library only.
        .target(name: "PegglePhysics"),
        // The game: levels, rules, scoring, modes, shot resolution. Value types over PegglePhysics.
        .target(name: "PeggleGame", dependencies: ["PegglePhysics"]),
        // The RL environment: spaces, encoders, rewards, Env, VectorEnv, the serve protocol.
        .target(name: "PeggleEnv", dependencies: ["PeggleGame"]),
        // Analytics: for now SVG rendering of boards and trajectories.
        .target(name: "PeggleAnalytics", dependencies: ["PeggleGame"]),
        // The command-line tool: owns files, the terminal and the process.
        .executableTarget(
            name: "peggle",
            dependencies: [
                "PegglePhysics", "PeggleGame", "PeggleEnv", "PeggleAnalytics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .testTarget(name: "PegglePhysicsTests", dependencies: ["PegglePhysics"]),
        .testTarget(name: "PeggleGameTests", dependencies: ["PeggleGame"]),
        .testTarget(name: "PeggleEnvTests", dependencies: ["PeggleEnv"]),
        .testTarget(name: "PeggleAnalyticsTests", dependencies: ["PeggleAnalytics"]),
        // End-to-end: runs the built `peggle` binary as a user would.
        .testTarget(name: "PeggleCLITests", dependencies: ["peggle"]),
    ]
)
