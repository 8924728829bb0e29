import Foundation
import PeggleCommandLine
import PeggleLevel
import PeggleServe
import Testing
@testable import peggle_bench

/// A row whose two parts both declare `threads`.
private struct Twice: BenchRow {
    struct Columns: Encodable { var threads = 1 }
    struct Extra: Encodable { var threads = 2 }
    var columns = Columns()
    var extra = Extra()
}

/// The benchmarks' typed rows write what the dictionaries before them wrote: the same CSV header
/// (pinned, from the old command's column lists) and the same JSON keys and text.
@Suite("bench rows")
struct BenchRowTests {
    static let physics = BenchPhysics.Row(
        columns: .init(threads: 2, shots: 400, steps: 437_520, seconds: 0.0206, stepsPerS: 21_254_114.0, shotsPerS: 19_432.0,
                       meanStepsPerShot: 1093.8, gameShotsPerS: 31_540.0, gameMeanStepsPerShot: 360.2),
        extra: .init(engine: "peggle-gym 1", scene: "grid", pegs: 120, repeat: 3, cores: 2, stepsPerSRuns: [1.5, 2.0],
                     gameShotsPerSRuns: [3.0], gameEpisodes: 40, gameShots: 300, gameSteps: 108_060, gameSeconds: 0.0095))

    /// The row as the old command built it, value for value.
    static var physicsDictionary: [String: Any] { [
        "engine": "peggle-gym 1", "scene": "grid", "pegs": 120, "shots": 400, "threads": 2, "repeat": 3, "cores": 2,
        "steps": 437_520, "seconds": 0.0206, "steps_per_s": 21_254_114.0, "shots_per_s": 19_432.0, "mean_steps_per_shot": 1093.8,
        "steps_per_s_runs": [1.5, 2.0], "game_shots_per_s_runs": [3.0], "game_episodes": 40, "game_shots": 300,
        "game_steps": 108_060, "game_seconds": 0.0095, "game_shots_per_s": 31_540.0, "game_mean_steps_per_shot": 360.2,
    ] }

    @Test func physicsRowWritesTheOldJSONAndCSV() throws {
        #expect(try JSON.text(try BenchOutput<BenchPhysics.Row>.object(Self.physics)) == JSON.text(Self.physicsDictionary))
        let csv = try BenchOutput<BenchPhysics.Row>.csv([Self.physics, Self.physics])
        #expect(csv == "threads,shots,steps,seconds,steps_per_s,shots_per_s,mean_steps_per_shot,game_shots_per_s,game_mean_steps_per_shot\n"
            + "2,400,437520,0.0206,21254114.0,19432.0,1093.8,31540.0,360.2\n"
            + "2,400,437520,0.0206,21254114.0,19432.0,1093.8,31540.0,360.2\n")
    }

    /// The first line of each benchmark's CSV, as `peggle bench --csv` wrote it before subcommands (and `peggle-bench` still writes it).
    @Test func everyHeaderIsTheOldOne() throws {
        func header<Row: BenchRow>(_ row: Row) throws -> Substring {
            try BenchOutput<Row>.csv([row]).split(separator: "\n")[0]
        }
        let environment = EnvironmentRow(
            columns: .init(mode: "serve", envs: 64, threads: 1, batches: 40, shots: 2560, seconds: 0.4, shotsPerS: 6400.0),
            extra: .init(engine: "e", cores: 2, encoder: "objects", obsEncoding: "f32", inProcessShotsPerS: 9000.0, serveOverInProcess: 0.71))
        #expect(try header(environment) == "mode,envs,threads,batches,shots,seconds,shots_per_s")
        let greedy = BenchGreedy.Row(
            columns: .init(mode: "greedy", threads: 1, sigma: 0.02, decisions: 12, simulations: 5000, seconds: 0.5, msPerDecision: 38.6,
                           simulationsPerS: 12_025.0),
            extra: .init(level: "Fortress", agent: "greedy", decisionsPerS: 24.0, cores: 2, sameChoiceAsUnscreened: nil,
                         meanValueRegret: nil, medianValueFull: nil))
        #expect(try header(greedy) == "mode,threads,sigma,decisions,simulations,seconds,ms_per_decision,simulations_per_s")
        let render = BenchRender.Row(
            columns: .init(mode: "render", width: 800, height: 600, renders: 200, msPerRgbRender: 2.4, msPerSvgRender: 1.8),
            extra: .init(level: "Bench Grid", rgbRunsMs: [2.4], checksum: 7, cores: 2))
        #expect(try header(render) == "mode,width,height,renders,ms_per_rgb_render,ms_per_svg_render")
        let rating = BenchRating.Row(
            columns: .init(mode: "rating", levels: 14, threads: 2, budget: 160, precision: 1.25, seconds: 54.6, cpuSeconds: 108.6,
                           games: 2160, levelsPerHour: 923.0),
            extra: .init(agents: ["random"], gamesPerKind: ["random": 280], gamesPerS: 39.6, stops: ["budget": 8], cores: 2))
        #expect(try header(rating) == "mode,levels,threads,budget,precision,seconds,cpu_seconds,games,levels_per_hour")
        let generate = BenchGenerate.Row(
            columns: .init(mode: "generate", distribution: "easy", levels: 2000, meanPegs: 49.8, usPerLevel: 152.0, usPerValidate: 48.0,
                           usPerNewGame: 149.0, usPerResetGenerated: 256.0, usPerResetKept: 3.2, usPerResetFile: 2.4, usPerEpisode: 939.0),
            extra: .init(episodes: 100, meanStepsPerEpisode: 13.4, resetShareOfEpisode: 0.27))
        #expect(try header(generate) == "mode,distribution,levels,mean_pegs,us_per_level,us_per_validate,us_per_new_game,"
            + "us_per_reset_generated,us_per_reset_kept,us_per_reset_file,us_per_episode")

        // The JSON keys, as the old rows named them; an optional field left empty is absent.
        func keys<Row: BenchRow>(_ row: Row) throws -> Set<String> { Set(try BenchOutput<Row>.object(row).keys) }
        #expect(try keys(environment) == ["mode", "engine", "envs", "threads", "cores", "batches", "shots", "seconds", "shots_per_s",
                                           "encoder", "obs_encoding", "in_process_shots_per_s", "serve_over_in_process"])
        #expect(try keys(greedy) == ["mode", "level", "threads", "sigma", "decisions", "agent", "simulations", "seconds",
                                      "decisions_per_s", "ms_per_decision", "simulations_per_s", "cores"])
        #expect(try keys(render) == ["mode", "level", "width", "height", "renders", "ms_per_rgb_render", "ms_per_svg_render",
                                      "rgb_runs_ms", "checksum", "cores"])
        #expect(try keys(rating) == ["mode", "levels", "threads", "agents", "budget", "precision", "seconds", "cpu_seconds", "games",
                                      "games_per_kind", "levels_per_hour", "games_per_s", "stops", "cores"])
        #expect(try keys(generate) == ["mode", "distribution", "levels", "mean_pegs", "us_per_level", "us_per_validate",
                                        "us_per_new_game", "us_per_reset_generated", "us_per_reset_kept", "us_per_reset_file",
                                        "episodes", "mean_steps_per_episode", "us_per_episode", "reset_share_of_episode"])
        #expect(try JSON.text(try BenchOutput<BenchRating.Row>.object(rating)).contains(#""games_per_kind":{"random":280}"#))
    }

    @Test func snakeCaseIsFoundationsForNamesWithoutAcronyms() {
        #expect(RowFields.snakeCase("stepsPerS") == "steps_per_s")
        #expect(RowFields.snakeCase("msPerRgbRender") == "ms_per_rgb_render")
        #expect(RowFields.snakeCase("repeat") == "repeat")
    }

    /// Two fields of one name would lose one of them in the JSON line; the writer refuses.
    @Test func aFieldDeclaredTwiceIsRefused() throws {
        #expect(throws: UserError.self) { try BenchOutput<Twice>.object(Twice()) }
    }

    /// The benchmarks that are more than timing keep their columns and keys too.
    @Test func calibrationAndFreeFlightRowsKeepTheirColumns() throws {
        let calibration = BenchCalibration.Row(
            columns: .init(mode: "calibration", level: "l", placement: "quantile", prior: "flat", stop: "precision", knowledge: "prior",
                           ratings: 200, budget: 160, precision: 1.25, coverage: 0.955, stoppedBeforeBudget: 0.955, meanGames: 94.8,
                           medianGames: 88, medianIntervalRatio: 1.55, seconds: 1.2),
            extra: .init(trueSigma50: nil, covered: 191, stoppedEarly: 191, games: 18_968, threads: 1, cores: 2))
        #expect(try BenchOutput<BenchCalibration.Row>.csv([calibration]).split(separator: "\n")[0]
            == "mode,level,placement,prior,stop,knowledge,ratings,budget,precision,coverage,stopped_before_budget,mean_games,"
            + "median_games,median_interval_ratio,seconds")
        // A drawn population has no one true sigma50: the key is left out.
        #expect(Set(try BenchOutput<BenchCalibration.Row>.object(calibration).keys).subtracting(
            ["mode", "level", "placement", "prior", "stop", "knowledge", "ratings", "budget", "precision", "coverage",
             "stopped_before_budget", "mean_games", "median_games", "median_interval_ratio", "seconds"])
            == ["covered", "stopped_early", "games", "threads", "cores"])
        let freeFlight = BenchFreeFlight.Row(
            columns: .init(threads: 2, levels: 500, shots: 10_000, steps: 3_000_000, skipped: 2_000_000, misses: 0, mismatches: 0,
                           seconds: 9.5),
            extra: .init(compared: true))
        #expect(try BenchOutput<BenchFreeFlight.Row>.csv([freeFlight])
            == "threads,levels,shots,steps,skipped,misses,mismatches,seconds\n2,500,10000,3000000,2000000,0,0,9.5\n")
        #expect(try JSON.text(try BenchOutput<BenchFreeFlight.Row>.object(freeFlight))
            == JSON.text(["compared": true, "levels": 500, "misses": 0, "mismatches": 0, "seconds": 9.5, "shots": 10_000,
                          "skipped": 2_000_000, "steps": 3_000_000, "threads": 2] as [String: Any]))
    }

    /// `peggle-bench toi-fuzz`: its columns, its options, and the run folded in variant order (the
    /// same tally, hash included, on one thread and two).
    @Test func toiFuzzRowOptionsAndRun() throws {
        let row = BenchTOIFuzz.Row(
            columns: .init(threads: 2, levels: 5, shots: 100, steps: 50_000, games: 14, handOffs: 3, turnedShots: 20,
                           checkedShots: 95, positions: 48_000, nonFinite: 0, tunnelled: 0, throughWalls: 0, overLimit: 0,
                           longGames: 0, timeBack: 0, mismatches: 0, v1Tunnelled: 0, v1ThroughWalls: 0, squeezed: 0,
                           hash: BenchTOIFuzz.hex(0xab), seconds: 0.1),
            extra: .init(physics: 2, compared: true, gamesOver: 9, partlyCheckedShots: 5, runaways: 0, deepest: 0, v1Deepest: 0,
                         v1Positions: 9000, examples: [], v1Examples: []))
        #expect(try BenchOutput<BenchTOIFuzz.Row>.csv([row])
            == "threads,levels,shots,steps,games,hand_offs,turned_shots,checked_shots,positions,non_finite,tunnelled,through_walls,"
            + "over_limit,long_games,time_back,mismatches,v1_tunnelled,v1_through_walls,squeezed,hash,seconds\n"
            + "2,5,100,50000,14,3,20,95,48000,0,0,0,0,0,0,0,0,0,0,00000000000000ab,0.1\n")
        let parsed = try #require(try PeggleBench.parseAsRoot(["toi-fuzz", "--shots", "60", "--shots-per-level", "7", "--compare",
                                                              "--physics", "1", "--threads", "1,2"]) as? BenchTOIFuzz)
        #expect(parsed.shots == 60 && parsed.shotsPerLevel == 7 && parsed.compare && parsed.physics == .fixedStep)
        #expect(try parsed.threads.counts() == [1, 2])
        let standard = try #require(try PeggleBench.parseAsRoot(["toi-fuzz"]) as? BenchTOIFuzz)
        #expect(standard.physics == .timeOfImpact && !standard.compare)
        let one = try BenchTOIFuzz.run(shots: 60, shotsPerLevel: 7, compare: false, threads: 1)
        let two = try BenchTOIFuzz.run(shots: 60, shotsPerLevel: 7, compare: true, threads: 2)
        #expect(one.shots == 60 && one.hash != 0 && one.hash == two.hash && one.games == two.games && two.mismatches == 0)
    }

    /// `peggle-bench` alone runs the physics benchmark; each benchmark parses as its subcommand.
    @Test func theRegistryParsesEachBenchmark() throws {
        #expect(try PeggleBench.parseAsRoot([]) is BenchPhysics)
        let serve = try #require(try PeggleBench.parseAsRoot(["serve", "--envs", "8", "--obs-encoding", "b64f32", "--threads", "2"]) as? BenchServe)
        #expect(serve.environments.envs == 8 && serve.obsEncoding == .b64f32)
        #expect(try serve.threads.counts() == [2])
        #expect(PeggleBench.benchmarks.map { $0.configuration.commandName ?? "" }
            == ["physics", "vector", "serve", "greedy", "render", "rating", "generate", "calibration", "freeflight", "toi", "toi-games",
                "toi-fuzz", "estimate", "toi-fidelity"])
        // The environment workloads take --physics into their environments' rules.
        let vector = try #require(try PeggleBench.parseAsRoot(["vector", "--physics", "2"]) as? BenchVector)
        #expect(vector.environments.config(Level(name: "empty")).rules.physicsVersion == .timeOfImpact)
        let standard = try #require(try PeggleBench.parseAsRoot(["vector"]) as? BenchVector)
        #expect(standard.environments.config(Level(name: "empty")).rules.physicsVersion == .standard)
    }
}
