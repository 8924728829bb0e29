import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleEnv
import PeggleGame
import PeggleLab
import PeggleLevel
import PeggleServe

/// `peggle-bench serve`: the `vector` workload through a real `peggle serve` pipe.
struct BenchServe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Environment throughput through a `peggle serve` pipe, beside the same workload in process.",
        discussion: "A `peggle serve` child is driven request by request as a client would (ServeClient), decoding every "
            + "reply (infos in the columns layout) and its observations (--obs-encoding). Each run is followed by the "
            + "in-process run of `vector`, so a row compares the two measured together (serve_over_in_process).")

    @OptionGroup var environments: EnvironmentWorkload

    @Option(help: "Observation encoding: f32 (a binary frame after each reply line) or b64f32 (base64 in the line).")
    var obsEncoding = ObservationEncoding.f32

    @Option(help: "The `peggle` executable to serve (default: the one beside peggle-bench, built with it).")
    var peggle: String?

    @OptionGroup var threads: BenchThreads

    @OptionGroup var output: BenchOutputOptions

    func run() throws {
        // JSON observations are for debugging; a client that decodes them is not what is measured.
        guard obsEncoding != .json else { throw UserError("--obs-encoding: json is not measured; give f32 or b64f32") }
        let (level, counts) = try environments.load(threads)
        let server = try serverExecutable()
        var out = try BenchOutput<EnvironmentRow>(output)
        let round = BenchClock.round
        for t in counts {
            var piped: [BenchClock.Run] = [], inProcess: [BenchClock.Run] = []
            for _ in 0..<environments.workload.repeat {
                inProcess.append(try environments.runVector(level, threads: t))
                piped.append(try runServe(server, threads: t))
            }
            let serve = BenchClock.median(piped), local = BenchClock.median(inProcess)
            let servePerS = round(Double(serve.shots) / serve.seconds, 1), localPerS = round(Double(local.shots) / local.seconds, 1)
            let row = environments.row("serve", serve, threads: t, serve: .init(
                obsEncoding: obsEncoding.rawValue, inProcessShotsPerS: localPerS, serveOverInProcess: round(servePerS / localPerS, 3)))
            try out.emit(row, text: "serve, \(environments.envs) envs, threads \(t): \(row.columns.shotsPerS) shots/s "
                + "(median of \(environments.workload.repeat)); in process \(localPerS) shots/s")
        }
        try out.finish()
    }

    /// `--peggle`, or the `peggle` beside this executable (SwiftPM builds both into one folder).
    func serverExecutable() throws -> URL {
        if let peggle {
            guard FileManager.default.isExecutableFile(atPath: peggle) else { throw UserError("--peggle: \(peggle): no such executable") }
            return URL(fileURLWithPath: peggle)
        }
        let beside = URL(fileURLWithPath: Bundled.executable ?? CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("peggle")
        guard FileManager.default.isExecutableFile(atPath: beside.path) else {
            throw UserError("bench serve: no peggle beside peggle-bench (\(beside.path)); build it (swift build -c release) or give --peggle PATH")
        }
        return beside
    }

    /// A real `peggle serve` child, made with the workload's environments, reset, then stepped
    /// with the same actions as in process.
    func runServe(_ server: URL, threads: Int) throws -> BenchClock.Run {
        let client: ServeClient
        do { client = try ServeClient(executable: server) } catch { throw UserError("bench serve: \(error)") }
        defer { client.close() }
        func request<R: ServeReply>(_ line: String, as: R.Type) throws -> R {
            do { return try client.request(line, as: R.self) } catch { throw UserError("bench serve: \(error)") }
        }
        let levelPath = environments.workload.level
        let absolute = URL(fileURLWithPath: levelPath).path
        let maxObjects = environments.config(try Files.loadLevel(levelPath)).maxObjects
        let envs = environments.envs
        _ = try request(#"{"cmd":"make","level":\#(LevelCodec.quote(absolute)),"num_envs":\#(envs),"threads":\#(threads),"obs_encoding":"\#(obsEncoding.rawValue)","info_layout":"columns","max_objects":\#(maxObjects),"encoder":"\#(environments.encoder.rawValue)","physics":\#(environments.physicsOption.physics.rawValue)}"#, as: ServeClient.Reply.self)
        _ = try request(#"{"cmd":"reset","seed":0}"#, as: ServeClient.Reply.self)
        let all = environments.actions()
        var shots = 0
        var checksum: Float = 0
        let start = BenchClock.now()
        for a in all {
            let reply = try request(#"{"cmd":"step","actions":[\#(a.map { "\($0)" }.joined(separator: ","))]}"#, as: StepReply.self)
            guard client.observations.count == envs * (reply.obs_shape?.last ?? -1) else {
                throw UserError("bench serve: a reply without its observations")
            }
            // Read the observations as a client would, so the copy cannot be skipped.
            checksum += client.observations[0]
            // Infos in columns (as the Python vector client takes them): `_angle` marks the
            // environments that shot (the others were reset).
            let shot = reply.infos?._angle ?? []
            shots += shot.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let seconds = BenchClock.seconds(since: start)
        _ = checksum
        return BenchClock.Run(shots: shots, steps: 0, seconds: seconds)
    }
}

extension ObservationEncoding: ExpressibleByArgument {}

/// The parts of a step's reply the benchmark reads (protocol field names).
struct StepReply: ServeReply {
    struct Infos: Decodable { var _angle: [Bool]? }
    var ok: Bool
    var error: ServeClient.ErrorBody?
    var obs_shape: [Int]?
    var infos: Infos?
}
