// swift-tools-version:6.0
// Peggle Gym: a deterministic Peggle simulator, RL environment and level-difficulty rater.
import Foundation
import PackageDescription

// Release builds of our own targets use the CPU's AVX2 vector instructions (LLVM's "haswell":
// AVX2, BMI2, FMA) when the building machine has them: SIMD4<Double> sweeps then take one
// instruction instead of two, and the 14-level rating runs 6 to 8% faster. Results are the same
// bit for bit: Swift never contracts a multiply and an add into an FMA (the tuned binary holds no
// FMA instruction), and every other operation is IEEE-exact either way (docs/performance.md).
// Such a binary needs an AVX2 CPU; build on the machine that runs it. Debug builds are never tuned.
// PEGGLE_GENERIC=1 in the environment builds for any x86-64 CPU whatever this one has: the wheel
// (scripts/wheel, docs/distribution.md) carries such a binary to machines it was not built on.
let generic = ProcessInfo.processInfo.environment["PEGGLE_GENERIC"].map { !$0.isEmpty && $0 != "0" } ?? false
let cpuFlags = generic ? [] : (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)).map { Set($0.split { " \t\n".contains($0) }) } ?? []
// PEGGLE_STATIC=1 links the Swift runtime and Foundation into `peggle` itself (the wheel's engine
// needs no Swift toolchain where it runs). It is `-static-stdlib` on the link only: SwiftPM's
// `--static-swift-stdlib` also adds it to every compile, so its dependencies could not be shared
// with the test build (docs/distribution.md, "CI"); both give a binary that needs no Swift library.
let staticStdlib = ProcessInfo.processInfo.environment["PEGGLE_STATIC"].map { !$0.isEmpty && $0 != "0" } ?? false
// What the static Foundation (Swift 6.3's swift_static) links beside itself. Modules compiled for the
// shared Foundation do not name these, so they are named here; a toolchain that splits Foundation
// otherwise fails this link loudly (undefined references), never at run time.
let staticFoundation = ["-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCollections", "-l_FoundationCShims"]
let tuned: [SwiftSetting] = !cpuFlags.isEmpty && ["avx2", "bmi2", "fma"].allSatisfy { cpuFlags.contains(Substring($0)) }
    ? [.unsafeFlags(["-target-cpu", "haswell"], .when(platforms: [.linux], configuration: .release))] : []
// The executables themselves are not tuned; told that their libraries are, they check the CPU first.
let checksCPU: [SwiftSetting] = tuned.isEmpty ? [] : [.define("PEGGLE_TUNED", .when(platforms: [.linux], configuration: .release))]

let package = Package(
    name: "PeggleGym",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "peggle", targets: ["peggle"]),
        .executable(name: "peggle-bench", targets: ["peggle-bench"]),
        .library(name: "PegglePhysics", targets: ["PegglePhysics"]),
        .library(name: "PeggleUtilities", targets: ["PeggleUtilities"]),
        .library(name: "PeggleLevel", targets: ["PeggleLevel"]),
        .library(name: "PeggleGenerator", targets: ["PeggleGenerator"]),
        .library(name: "PeggleLevelFiles", targets: ["PeggleLevelFiles"]),
        .library(name: "PeggleGame", targets: ["PeggleGame"]),
        .library(name: "PeggleEnv", targets: ["PeggleEnv"]),
        .library(name: "PeggleServe", targets: ["PeggleServe"]),
        .library(name: "PeggleDifficulty", targets: ["PeggleDifficulty"]),
        .library(name: "PeggleDrawing", targets: ["PeggleDrawing"]),
        .library(name: "PeggleReports", targets: ["PeggleReports"]),
        .library(name: "PeggleEstimate", targets: ["PeggleEstimate"]),
        .library(name: "PeggleAgents", targets: ["PeggleAgents"]),
        .library(name: "PeggleStore", targets: ["PeggleStore"]),
        .library(name: "PeggleRating", targets: ["PeggleRating"]),
        .library(name: "PeggleLevelSearch", targets: ["PeggleLevelSearch"]),
        .library(name: "PeggleStudio", targets: ["PeggleStudio"]),
        // The environment as a C library for other processes (Python's native backend):
        // libpeggle_env.so, whose whole interface is Sources/CPeggleEnv/include/peggle_env.h.
        .library(name: "peggle_env", type: .dynamic, targets: ["PeggleNative"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Hummingbird's own networking: the studio's tests ask its router in process over a test channel.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // Physics: continuous collision of balls against a static obstacle store. Standard library only.
        .target(name: "PegglePhysics", swiftSettings: tuned),
        // The second physics (issue 51), beside today's: closed-form flight, times of impact as
        // earliest polynomial roots, v1's contact rules. One ball among static obstacles so far.
        .target(name: "PegglePhysicsTOI", dependencies: ["PegglePhysics"], swiftSettings: tuned),
        // Small utilities every layer uses: the parallel-for, the seeded random stream, content
        // hashes, locale-free decimal text.
        .target(name: "PeggleUtilities", dependencies: ["PegglePhysics"], swiftSettings: tuned),
        // Levels: the rules, the level model and its JSON format, validation, the designer's edits.
        .target(name: "PeggleLevel", dependencies: ["PegglePhysics", "PeggleUtilities"], swiftSettings: tuned),
        // Procedural levels: templates, the single-pass builder, kinds by exposure.
        .target(name: "PeggleGenerator", dependencies: ["PegglePhysics", "PeggleUtilities", "PeggleLevel"], swiftSettings: tuned),
        // A folder of level files as the designer tools see it (the one module of levels that reads files).
        .target(name: "PeggleLevelFiles", dependencies: ["PeggleLevel"]),
        // The game: game state, shot resolution, scoring, modes, the played-game row, the aim encoder
        // (what a shot at each aim would do: the env's `aim` observation, the linear agent's and the
        // estimate's features). Value types.
        .target(name: "PeggleGame", dependencies: ["PegglePhysics", "PegglePhysicsTOI", "PeggleUtilities", "PeggleLevel"], swiftSettings: tuned),
        // Difficulty statistics: sigma50's skill model and posterior, the adaptive measurement and its
        // stopping rule, Wilson intervals, per-agent statistics, tiers.
        .target(name: "PeggleDifficulty", dependencies: ["PeggleUtilities", "PeggleLevel", "PeggleGame"]),
        // The instant estimate: sigma50 predicted from a level's features (whole shots from the start,
        // the aim encoder's features) by a fitted model built into the binary, without playing a game.
        .target(name: "PeggleEstimate", dependencies: ["PeggleUtilities", "PeggleLevel", "PeggleGenerator", "PeggleGame", "PeggleDifficulty"],
                resources: [.embedInCode("Model/sigma50-estimate.json")]),
        // The RL environment: spaces, encoders, rewards, Env, VectorEnv, procedural levels (by
        // distribution, or by a tier). The `pixels` encoder draws with the rasteriser it is given
        // (PeggleDrawing's PixelRenderer): one rasteriser; a `tier-*` distribution chooses levels with
        // the `TierScreen` it is given (the estimate's, from `peggle serve`), so it needs no estimate.
        .target(name: "PeggleEnv", dependencies: ["PegglePhysics", "PeggleUtilities", "PeggleLevel", "PeggleGenerator", "PeggleGame"], swiftSettings: tuned),
        // The serve protocol: typed requests, the option table and its spec, the session, replies,
        // and the Swift client the bench and the tests drive `peggle serve` with.
        .target(name: "PeggleServe", dependencies: ["PeggleUtilities", "PeggleLevel", "PeggleGenerator", "PeggleGame", "PeggleEnv"], swiftSettings: tuned),
        // The native library's C declarations (peggle_env.h: statuses, info columns, the buffers
        // struct, the functions), the one statement of its ABI; the C file only checks its sizes.
        .target(name: "CPeggleEnv"),
        // Which of the tuned build's instruction sets the CPU has (CPUID), asked by the executables
        // before any tuned code runs. C, so never tuned itself.
        .target(name: "CPeggleCPU"),
        // What every host of the environment runs: the serve session with the level reader, the
        // renderers and the tier screen (`peggle serve` and the native library alike).
        .target(name: "PeggleHost",
                dependencies: ["PeggleLevel", "PeggleLevelFiles", "PeggleEnv", "PeggleServe", "PeggleDifficulty", "PeggleDrawing",
                               "PeggleEstimate"]),
        // The environment in another process: the C functions of peggle_env.h over the host's
        // session, the caller's buffers on the hot path; alone in libpeggle_env.so. The wheel's
        // build links the Swift runtime in and exports only the peggle_ functions (exports.map).
        .target(name: "PeggleNative",
                dependencies: ["CPeggleEnv", "PeggleGame", "PeggleEnv", "PeggleServe", "PeggleHost"],
                exclude: ["exports.map"],
                swiftSettings: tuned,
                linkerSettings: staticStdlib
                    ? [.unsafeFlags(["-static-stdlib"] + staticFoundation
                        + ["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/PeggleNative/exports.map"],
                                    .when(platforms: [.linux]))]
                    : []),
        // Drawing: boards and shots as SVG and as pixels, the charts of a skill curve.
        .target(name: "PeggleDrawing", dependencies: ["PegglePhysics", "PeggleUtilities", "PeggleLevel", "PeggleGame", "PeggleDifficulty"]),
        // Reports: difficulty.csv and episodes.csv, the HTML report, the level gallery page.
        .target(name: "PeggleReports", dependencies: ["PeggleUtilities", "PeggleLevel", "PeggleGame", "PeggleDifficulty", "PeggleDrawing"]),
        // OpenBLAS's CBLAS interface (Debian's libopenblas-dev), for batched linear-policy evaluation.
        .systemLibrary(name: "CBLAS", path: "Sources/CBLAS"),
        // Agents: random, greedy search over GameState copies, a linear policy trained by evolution
        // (over PeggleGame's aim encoder, whose features the environment's `aim` observation holds
        // too), and the factory every caller names and makes them through. It needs nothing of PeggleEnv (ArchitectureTableTests refuses an edge no file imports).
        .target(name: "PeggleAgents", dependencies: ["PeggleUtilities", "PeggleLevel", "PeggleGame", "CBLAS"], swiftSettings: tuned),
        // Storage of ratings: levels, agents, runs, episodes and shots in SQLite through GRDB.
        .target(name: "PeggleStore", dependencies: ["PeggleLevel", "PeggleGame", .product(name: "GRDB", package: "GRDB.swift")]),
        // Rating runs: the plan, the adaptive measurement of sigma50, the worker pool, the single writer.
        .target(name: "PeggleRating", dependencies: ["PeggleUtilities", "PeggleLevel", "PeggleGame", "PeggleAgents", "PeggleStore", "PeggleDifficulty", "PeggleEstimate"], swiftSettings: tuned),
        // Levels at a requested difficulty: generated candidates screened by the estimate, confirmed
        // by the rater.
        .target(name: "PeggleLevelSearch", dependencies: ["PeggleUtilities", "PeggleLevel", "PeggleGenerator", "PeggleGame", "PeggleDifficulty", "PeggleEstimate", "PeggleAgents",
                                                         "PeggleStore", "PeggleRating"]),
        // Peggle Studio: the designer, the game and the rater in a browser. The API calls the same code as
        // the CLI; the page (HTML, CSS, plain JavaScript) is embedded in the binary, so nothing is fetched.
        .target(
            name: "PeggleStudio",
            dependencies: ["PegglePhysics", "PeggleUtilities", "PeggleLevel", "PeggleLevelFiles", "PeggleGame", "PeggleDifficulty", "PeggleDrawing",
                           "PeggleEstimate", "PeggleAgents", "PeggleStore", "PeggleRating", "PeggleLevelSearch",
                           .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log")],
            resources: [.embedInCode("Page/index.html"), .embedInCode("Page/studio.css"), .embedInCode("Page/studio.js")]),
        // What the two executables share: bad input as `UserError` (exit code 2), comma-separated
        // lists, level files read and outputs checked, JSON text, and the option groups that make
        // agents and ratings, so `peggle-bench rating` rates exactly as `peggle rate` does.
        // Agents/linear.json (a link to it), the policy `rate`'s default agents name, for a
        // `peggle` run outside a checkout (Bundled.swift).
        .target(
            name: "PeggleCommandLine",
            dependencies: ["CPeggleCPU", "PegglePhysics", "PeggleLevel", "PeggleLevelFiles", "PeggleGame", "PeggleDifficulty", "PeggleAgents", "PeggleRating",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            resources: [.embedInCode("Builtin/linear.json")]),
        // The command-line tool, the product: owns files, the terminal and the process.
        .executableTarget(
            name: "peggle",
            dependencies: [
                "PeggleUtilities", "PeggleLevel", "PeggleGenerator", "PeggleLevelFiles", "PeggleGame",
                "PeggleServe", "PeggleDifficulty", "PeggleDrawing", "PeggleReports", "PeggleEstimate", "PeggleAgents", "PeggleStore",
                "PeggleRating", "PeggleLevelSearch", "PeggleStudio", "PeggleCommandLine", "PeggleHost",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: checksCPU,
            linkerSettings: staticStdlib ? [.unsafeFlags(["-static-stdlib"] + staticFoundation, .when(platforms: [.linux]))] : []),
        // The lab's library (Box2D's `shared/`): what the benchmarks and the tests share and the
        // product never runs: the physics workloads, the serve protocol's client and its reply
        // decoder, the synthetic levels of the rater's calibration. Only peggle-bench and test
        // targets depend on it (ArchitectureTableTests: `peggle` and the native library never reach it).
        .target(name: "PeggleLab", dependencies: ["PeggleUtilities", "PeggleLevel", "PegglePhysics", "PeggleGame", "PeggleDifficulty",
                                                  "PeggleEnv", "PeggleServe"], swiftSettings: tuned),
        // The lab: the benchmarks (a registry of workloads with typed rows), apart from the product;
        // never in the wheel. `bench serve` drives the `peggle` built beside it.
        .executableTarget(
            name: "peggle-bench",
            dependencies: [
                "PeggleLab", "PeggleUtilities", "PeggleLevel", "PeggleGenerator", "PeggleGame", "PeggleEnv", "PeggleServe", "PeggleDifficulty",
                "PeggleDrawing", "PeggleEstimate", "PeggleStore", "PeggleRating", "PeggleCommandLine",
                "PegglePhysics", "PegglePhysicsTOI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: checksCPU),

        // What the test targets share: where the repository's files are, levels and played games built
        // by hand, SVG documents parsed.
        .target(name: "PeggleTestSupport", dependencies: ["PeggleDifficulty"], path: "Tests/PeggleTestSupport"),
        .testTarget(name: "PegglePhysicsTests", dependencies: ["PegglePhysics", "PeggleTestSupport"]),
        .testTarget(name: "PegglePhysicsTOITests", dependencies: ["PegglePhysicsTOI", "PegglePhysics", "PeggleUtilities", "PeggleLevel",
                                                               "PeggleGame", "PeggleTestSupport"]),
        .testTarget(name: "PeggleUtilitiesTests", dependencies: ["PeggleUtilities"]),
        .testTarget(name: "PeggleLevelTests", dependencies: ["PeggleLevel", "PeggleTestSupport"]),
        .testTarget(name: "PeggleGeneratorTests", dependencies: ["PeggleGenerator", "PeggleTestSupport"]),
        .testTarget(name: "PeggleLevelFilesTests", dependencies: ["PeggleLevelFiles"]),
        .testTarget(name: "PeggleGameTests", dependencies: ["PeggleGame", "PeggleTestSupport"]),
        .testTarget(name: "PeggleEnvTests", dependencies: ["PeggleEnv", "PeggleDrawing", "PeggleEstimate", "PeggleLab", "PeggleTestSupport"]),
        .testTarget(name: "PeggleServeTests", dependencies: ["PeggleServe", "PeggleDrawing", "PeggleLab", "PeggleTestSupport"]),
        .testTarget(name: "PeggleNativeTests", dependencies: ["PeggleNative", "CPeggleEnv", "PeggleServe", "PeggleTestSupport"]),
        .testTarget(name: "PeggleDifficultyTests", dependencies: ["PeggleDifficulty", "PeggleLab", "PeggleTestSupport"]),
        .testTarget(name: "PeggleDrawingTests", dependencies: ["PeggleDrawing", "PeggleTestSupport"]),
        .testTarget(name: "PeggleReportsTests", dependencies: ["PeggleReports", "PeggleTestSupport"]),
        .testTarget(name: "PeggleEstimateTests", dependencies: ["PeggleEstimate", "PeggleDifficulty", "PeggleTestSupport"]),
        .testTarget(name: "PeggleAgentsTests", dependencies: ["PeggleAgents", "PeggleEnv", "PeggleTestSupport"]),
        .testTarget(name: "PeggleStoreTests", dependencies: ["PeggleStore"]),
        .testTarget(name: "PeggleRatingTests", dependencies: ["PeggleRating", "PeggleLab"]),
        .testTarget(name: "PeggleLevelSearchTests", dependencies: ["PeggleLevelSearch"]),
        .testTarget(name: "PeggleStudioTests", dependencies: ["PeggleStudio", "PeggleTestSupport",
                                                              .product(name: "Hummingbird", package: "hummingbird"),
                                                              .product(name: "NIOEmbedded", package: "swift-nio")]),
        // End-to-end: runs the built `peggle` and `peggle-bench` binaries as a user would.
        .testTarget(name: "PeggleCLITests", dependencies: ["peggle", "peggle-bench", "PeggleAgents", "PeggleCommandLine", "PeggleServe", "PeggleLab", "PeggleStore", "PeggleReports", "PeggleLevelFiles", "PeggleTestSupport",
                                                           .product(name: "GRDB", package: "GRDB.swift")]),
    ]
)

// scripts/test runs the Swift suites against the release build (the code users run, and the
// binary the Python tests use, so one build serves every test). The test code itself needs no
// optimisation, and compiles several times faster without it.
for target in package.targets where target.type == .test {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone"], .when(configuration: .release))]
}

// The test suites import our modules plainly (no `@testable import`, so no -enable-testing): what
// they reach beyond the public API is declared `package`, visible to this package's modules only.
// So the release build scripts/test runs the suites against is compiled exactly as users get it,
// and the wheel's tuned engine, built in the same folder first, leaves every module but the test
// targets compiled for the test build (docs/distribution.md, "CI"). The one exception is the lab,
// `peggle-bench`: the wheel never builds it, so the test build compiles it anyway, and with
// -enable-testing its tests build its rows by their memberwise inits (`@testable import`) instead
// of two dozen hand-written `package` ones.
for target in package.targets where target.name == "peggle-bench" {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enable-testing"], .when(configuration: .release))]
}
