import Foundation
import PeggleServe
import Testing
@testable import peggle

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

    /// The first line of each benchmark's CSV, as `peggle bench --csv` wrote it before subcommands.
    @Test func everyHeaderIsTheOldOne() throws {
        func header<Row: BenchRow>(_ row: Row) throws -> Substring {
            try BenchOutput<Row>.csv([row]).split(separator: "\n")[0]
        }
        let environment = EnvironmentRow(
            columns: .init(mode: "serve", envs: 64, threads: 1, batches: 40, shots: 2560, seconds: 0.4, shotsPerS: 6400.0),
            extra: .init(engine: "e", cores: 2, obsEncoding: "f32", inProcessShotsPerS: 9000.0, serveOverInProcess: 0.71))
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
                                           "obs_encoding", "in_process_shots_per_s", "serve_over_in_process"])
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

    // MARK: The old form

    func legacy(_ arguments: [String]) throws -> (arguments: [String], warnings: [String])? {
        try Bench.legacy(["bench"] + arguments)
    }

    @Test func eachOldModeFlagNamesItsSubcommand() throws {
        for (flag, name) in [("--vector", "vector"), ("--serve", "serve"), ("--greedy", "greedy"), ("--render", "render"),
                             ("--rating", "rating"), ("--generate", "generate")] {
            let new = try #require(try legacy([flag, "--json"]))
            #expect(new.arguments == ["bench", name, "--json"])
            #expect(new.warnings == ["`peggle bench \(flag)` is deprecated; use `peggle bench \(name)`"])
        }
    }

    @Test func oldOptionsAreRespelledOrDropped() throws {
        let rating = try #require(try legacy(["--rating", "--rating-levels", "a.json,b.json", "--rating-agents=random,greedy",
                                              "--threads", "1,2", "--shots", "9", "--budget", "48"]))
        #expect(rating.arguments == ["bench", "rating", "a.json", "b.json", "--agents", "random,greedy", "--threads", "1,2",
                                     "--budget", "48"])
        #expect(rating.warnings.last == "--shots: not used by `peggle bench rating`; ignored, as before")
        let generate = try #require(try legacy(["--generate-levels", "50", "--generate", "--csv", "g.csv"]))
        #expect(generate.arguments == ["bench", "generate", "--levels", "50", "--csv", "g.csv"])
        // What is not an option of the old command goes on unchanged, for the parser to refuse.
        #expect(try legacy(["--vector", "--bogus", "3"])?.arguments == ["bench", "vector", "--bogus", "3"])
    }

    @Test func theNewFormAndThePhysicsDefaultAreLeftAlone() throws {
        #expect(try legacy(["vector", "--envs", "4"]) == nil)
        #expect(try legacy(["--scene", "grid", "--threads", "1,2"]) == nil)
        #expect(try legacy([]) == nil)
        #expect(try Bench.legacy(["rate", "--vector"]) == nil)
        #expect(throws: UserError.self) { try legacy(["--greedy", "--render"]) }
    }

    @Test func theOldFormParsesAsTheSubcommand() throws {
        let new = try #require(try legacy(["--serve", "--envs", "8", "--obs-encoding", "b64f32", "--threads", "2"]))
        let command = try Peggle.parseAsRoot(new.arguments)
        let serve = try #require(command as? BenchServe)
        #expect(serve.environments.envs == 8 && serve.obsEncoding == .b64f32)
        #expect(try serve.threads.counts() == [2])
        #expect(try Peggle.parseAsRoot(["bench"]) is BenchPhysics)
    }
}
