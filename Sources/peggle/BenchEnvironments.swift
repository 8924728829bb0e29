import Foundation
import PeggleEnv
import PeggleGame
import PeggleServe

/// `peggle bench --vector` and `--serve`: environment throughput in process and through a pipe.
extension Bench {
    /// The workload: `envs` environments on the level (next-step autoreset, the default object
    /// encoder), reset with seed 0, then `batches` steps of seeded random actions.
    func environmentConfig(_ lvl: Level) -> EnvConfig {
        var c = EnvConfig(levels: [lvl])
        c.maxObjects = max(c.maxObjects, lvl.pegs.count + lvl.blocks.count)
        return c
    }

    func batchActions() -> [[Double]] {
        var g = SeededGenerator(seed: 1)
        return (0..<batches).map { _ in (0..<envs).map { _ in g.nextUnit() * 2 - 1 } }
    }

    func runEnvironments(_ lvl: Level, _ counts: [Int]) throws -> [[String: Any]] {
        var rows: [[String: Any]] = []
        for t in counts {
            var inProcess: [Run] = []
            var piped: [Run] = []
            for _ in 0..<`repeat` {
                inProcess.append(try runVector(lvl, threads: t))
                if serve { piped.append(try runServe(level, threads: t)) }
            }
            var row = Self.envRow(vector || !serve ? "vector" : "serve", Self.median(serve ? piped : inProcess),
                                  envs: envs, threads: t, batches: batches)
            if serve {
                row["obs_encoding"] = obsEncoding
                let local = Self.median(inProcess)
                row["in_process_shots_per_s"] = Self.round(Double(local.shots) / local.seconds, 1)
                row["serve_over_in_process"] = Self.round((row["shots_per_s"] as! Double) / (row["in_process_shots_per_s"] as! Double), 3)
            }
            rows.append(row)
            if json {
                printLine(JSON.text(row))
            } else {
                var line = "\(row["mode"]!), \(envs) envs, threads \(t): \(row["shots_per_s"]!) shots/s (median of \(`repeat`))"
                if serve { line += "; in process \(row["in_process_shots_per_s"]!) shots/s" }
                printLine(line)
            }
        }
        return rows
    }

    static func envRow(_ mode: String, _ r: Run, envs: Int, threads: Int, batches: Int) -> [String: Any] {
        ["mode": mode, "engine": "peggle-gym \(PeggleGym.version)", "envs": envs, "threads": threads,
         "cores": ProcessInfo.processInfo.activeProcessorCount, "batches": batches, "shots": r.shots,
         "seconds": round(r.seconds, 4), "shots_per_s": round(Double(r.shots) / r.seconds, 1)]
    }

    /// In process: a VectorEnv stepped `batches` times. Counts shots actually taken (a next-step
    /// reset takes none).
    func runVector(_ lvl: Level, threads: Int) throws -> Run {
        var v = try VectorEnv(config: environmentConfig(lvl), count: envs, threads: threads)
        try v.reset(seed: 0)
        let all = batchActions()
        var shots = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for a in all {
            try v.step(a)
            for s in v.slots where s.info.shot != nil { shots += 1 }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Run(shots: shots, steps: 0, seconds: seconds)
    }

    /// Through a pipe: a real `peggle serve` child, driven request by request as a client would
    /// (`ServeClient`), decoding every reply (infos in the columns layout) and its observations
    /// (a binary frame or base64, per --obs-encoding).
    func runServe(_ levelPath: String, threads: Int) throws -> Run {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let client: ServeClient
        do { client = try ServeClient(executable: exe) } catch { throw UserError("--serve: \(error)") }
        defer { client.close() }
        func request<R: ServeReply>(_ line: String, as: R.Type) throws -> R {
            do { return try client.request(line, as: R.self) } catch { throw UserError("--serve: \(error)") }
        }
        let absolute = URL(fileURLWithPath: levelPath).path
        let maxObjects = environmentConfig(try Files.loadLevel(levelPath)).maxObjects
        _ = try request(#"{"cmd":"make","level":\#(LevelCodec.quote(absolute)),"num_envs":\#(envs),"threads":\#(threads),"obs_encoding":"\#(obsEncoding)","info_layout":"columns","max_objects":\#(maxObjects)}"#, as: ServeClient.Reply.self)
        _ = try request(#"{"cmd":"reset","seed":0}"#, as: ServeClient.Reply.self)
        let all = batchActions()
        var shots = 0
        var checksum: Float = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for a in all {
            let reply = try request(#"{"cmd":"step","actions":[\#(a.map { "\($0)" }.joined(separator: ","))]}"#, as: StepReply.self)
            guard client.observations.count == envs * (reply.obs_shape?.last ?? -1) else {
                throw UserError("--serve: a reply without its observations")
            }
            checksum += client.observations[0]
            // Infos in columns (as the Python vector client takes them): `_angle` marks the
            // environments that shot (the others were reset).
            let shot = reply.infos?._angle ?? []
            shots += shot.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        _ = checksum
        return Run(shots: shots, steps: 0, seconds: seconds)
    }
}

/// The parts of a step's reply the benchmark reads (protocol field names).
struct StepReply: ServeReply {
    struct Infos: Decodable { var _angle: [Bool]? }
    var ok: Bool
    var error: ServeClient.ErrorBody?
    var obs_shape: [Int]?
    var infos: Infos?
}
