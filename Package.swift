// swift-tools-version:6.0
// Peggle Gym: a deterministic Peggle simulator, RL environment and level-difficulty rater.
import Foundation
import PackageDescription

// Release builds of our own targets use the CPU's AVX2 vector instructions (LLVM's "haswell":
// AVX2, BMI2, FMA) when the building machine has them: SIMD4<Double> sweeps then take one
// instruction instead of two, and the 14-level rating runs 6 to 8% faster. Results are the same
// bit for bit: Swift never contracts a multiply and an add into an FMA (the tuned binary holds no
// FMA instruction), and every other operation is IEEE-exact either way (docs/performance.md).
// Such a binary needs an AVX2 CPU; build on the machine that runs it. Debug builds (the tests)
// are never tuned.
let cpuFlags = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)).map { Set($0.split { " \t\n".contains($0) }) } ?? []
let tuned: [SwiftSetting] = ["avx2", "bmi2", "fma"].allSatisfy { cpuFlags.contains(Substring($0)) }
    ? [.unsafeFlags(["-target-cpu", "haswell"], .when(platforms: [.linux], configuration: .release))] : []

let package = Package(
    name: "PeggleGym",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "peggle", targets: ["peggle"]),
        .library(name: "PegglePhysics", targets: ["PegglePhysics"]),
        .library(name: "PeggleGame", targets: ["PeggleGame"]),
        .library(name: "PeggleEnv", targets: ["PeggleEnv"]),
        .library(name: "PeggleServe", targets: ["PeggleServe"]),
        .library(name: "PeggleAnalytics", targets: ["PeggleAnalytics"]),
        .library(name: "PeggleAgents", targets: ["PeggleAgents"]),
        .library(name: "PeggleStore", targets: ["PeggleStore"]),
        .library(name: "PeggleRating", targets: ["PeggleRating"]),
        .library(name: "PeggleStudio", targets: ["PeggleStudio"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Physics: continuous collision of balls against a static obstacle store. Standard library only.
        .target(name: "PegglePhysics", swiftSettings: tuned),
        // The game: levels, rules, scoring, modes, shot resolution. Value types over PegglePhysics.
        .target(name: "PeggleGame", dependencies: ["PegglePhysics"], swiftSettings: tuned),
        // The RL environment: spaces, encoders (the aim encoder the linear agent shares), rewards, Env,
        // VectorEnv. The `pixels` encoder draws with the rasteriser it is given (PeggleAnalytics'
        // PixelRenderer): one rasteriser.
        .target(name: "PeggleEnv", dependencies: ["PeggleGame"], swiftSettings: tuned),
        // The serve protocol: typed requests, the option table and its spec, the session, replies,
        // and the Swift client the bench and the tests drive `peggle serve` with.
        .target(name: "PeggleServe", dependencies: ["PeggleEnv"], swiftSettings: tuned),
        // Analytics: SVG rendering of boards and trajectories, difficulty metrics, CSV and HTML reports.
        .target(name: "PeggleAnalytics", dependencies: ["PeggleGame"]),
        // OpenBLAS's CBLAS interface (Debian's libopenblas-dev), for batched linear-policy evaluation.
        .systemLibrary(name: "CBLAS", path: "Sources/CBLAS"),
        // Agents: random, greedy search over GameState copies, a linear policy trained by evolution
        // (over PeggleEnv's aim encoder, the features the environment's `aim` observation holds).
        .target(name: "PeggleAgents", dependencies: ["PeggleGame", "PeggleEnv", "CBLAS"], swiftSettings: tuned),
        // Storage of ratings: levels, agents, runs, episodes and shots in SQLite through GRDB.
        .target(name: "PeggleStore", dependencies: ["PeggleGame", .product(name: "GRDB", package: "GRDB.swift")]),
        // Rating runs: the plan, the adaptive measurement of sigma50, the worker pool, the single writer.
        .target(name: "PeggleRating", dependencies: ["PeggleAgents", "PeggleStore", "PeggleAnalytics"], swiftSettings: tuned),
        // Peggle Studio: the designer, the game and the rater in a browser. The API calls the same code as
        // the CLI; the page (HTML, CSS, plain JavaScript) is embedded in the binary, so nothing is fetched.
        .target(
            name: "PeggleStudio",
            dependencies: ["PeggleGame", "PeggleAnalytics", "PeggleAgents", "PeggleStore", "PeggleRating",
                           .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log")],
            resources: [.embedInCode("Page/index.html"), .embedInCode("Page/studio.css"), .embedInCode("Page/studio.js")]),
        // The command-line tool: owns files, the terminal and the process.
        .executableTarget(
            name: "peggle",
            dependencies: [
                "PegglePhysics", "PeggleGame", "PeggleEnv", "PeggleServe", "PeggleAnalytics", "PeggleAgents", "PeggleStore", "PeggleRating",
                "PeggleStudio", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // What the test targets share: where the repository's files are.
        .target(name: "PeggleTestSupport", path: "Tests/PeggleTestSupport"),
        .testTarget(name: "PegglePhysicsTests", dependencies: ["PegglePhysics", "PeggleTestSupport"]),
        .testTarget(name: "PeggleGameTests", dependencies: ["PeggleGame", "PeggleTestSupport"]),
        .testTarget(name: "PeggleEnvTests", dependencies: ["PeggleEnv", "PeggleAnalytics", "PeggleTestSupport"]),
        .testTarget(name: "PeggleServeTests", dependencies: ["PeggleServe", "PeggleAnalytics", "PeggleTestSupport"]),
        .testTarget(name: "PeggleAnalyticsTests", dependencies: ["PeggleAnalytics"]),
        .testTarget(name: "PeggleAgentsTests", dependencies: ["PeggleAgents", "PeggleEnv", "PeggleTestSupport"]),
        .testTarget(name: "PeggleStoreTests", dependencies: ["PeggleStore"]),
        .testTarget(name: "PeggleRatingTests", dependencies: ["PeggleRating"]),
        .testTarget(name: "PeggleStudioTests", dependencies: ["PeggleStudio", "PeggleTestSupport",
                                                              .product(name: "HummingbirdTesting", package: "hummingbird")]),
        // End-to-end: runs the built `peggle` binary as a user would.
        .testTarget(name: "PeggleCLITests", dependencies: ["peggle", "PeggleServe", "PeggleStore", "PeggleAnalytics", "PeggleTestSupport",
                                                           .product(name: "GRDB", package: "GRDB.swift")]),
    ]
)
