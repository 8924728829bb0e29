import ArgumentParser
import Foundation
import PeggleAgents
import PeggleCommandLine
import PeggleGame
import PeggleLevel

/// `peggle train`: trains the linear policy by the cross-entropy method, resumably, or (with
/// `--evaluate`) measures a saved policy against the random agent.
struct Train: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Train a linear policy (cross-entropy method), or evaluate one against the random agent.",
        discussion: """
            Training saves the whole optimizer state to --out after every iteration, so rerunning the \
            same command continues where it stopped; a finished file with the same settings is left \
            as it is. The learning curve goes beside the output as NAME.curve.csv. The same options \
            give the same weights, bit for bit, whatever --threads. See docs/agents.md.
            """)

    @Option(help: "Levels: comma-separated level files or folders (a folder gives its *.json files).")
    var levels: CommaList<String>

    @Option(help: "Keep only levels of this mode.")
    var mode: GameModeKind?

    @Option(help: "Comma-separated file names to leave out when reading folders, e.g. bench-grid.json.")
    var exclude: CommaList<String>?

    @Option(help: "The policy file to write, e.g. Agents/linear.json (the curve goes to Agents/linear.curve.csv).")
    var out: String?

    @Option(help: "Iterations to reach (a saved run with fewer is continued).")
    var iterations: Int = 40

    @Option(help: "Weight vectors sampled per iteration.")
    var population: Int = 32

    @Option(help: "Training: episodes per level for each member and iteration (default 2). --evaluate: episodes per level (default 100).")
    var episodes: Int?

    @Option(help: "Seed of the run (population draws and episode seeds).")
    var seed: UInt64 = 0

    @Option(parsing: .unconditional, help: "Aim noise of the training (or evaluated) episodes, radians.")
    var sigma: String = "0"

    @Option(help: "Episodes per level in the final evaluation written to the file (seeds 0..<n, sigma 0).")
    var evalEpisodes: Int = 100

    @Option(help: "Episodes per level of the mean policy after each iteration, for the learning curve (0: none).")
    var curveEpisodes: Int = 4

    @Option(help: "Worker threads (results do not depend on it).")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Evaluate this saved policy file on --levels against the random agent instead of training.")
    var evaluate: String?

    func run() throws {
        guard let noise = Double(sigma.trimmingCharacters(in: .whitespaces)), noise.isFinite else {
            throw UserError("--sigma: '\(sigma)' is not a finite number of radians")
        }
        guard noise >= 0 else { throw UserError("--sigma: \(sigma) is negative (aim noise is a standard deviation, radians >= 0)") }
        guard threads >= 1 else { throw UserError("--threads: \(threads) (must be at least 1)") }
        if let e = episodes, e < 1 { throw UserError("--episodes: \(e) (must be at least 1)") }
        let (levelList, files) = try loadLevels()
        if let file = evaluate {
            guard out == nil else { throw UserError("--out: not used with --evaluate (evaluation writes nothing)") }
            try runEvaluation(file, levelList, files, sigma: noise)
        } else {
            try runTraining(levelList, files, sigma: noise)
        }
    }

    // MARK: Levels

    func loadLevels() throws -> ([Level], [String]) {
        let skip = Set(try exclude?.values("--exclude") ?? [])
        let paths = try Files.levelFiles(try levels.values("--levels").filter { !$0.isEmpty }, excluding: skip)
        var out: [Level] = [], kept: [String] = []
        for p in paths {
            let level = try Files.loadLevel(p)
            if let m = mode, level.mode.kind != m { continue }
            out.append(level)
            kept.append(p)
        }
        guard !out.isEmpty else {
            throw UserError("--levels: no levels in '\(levels.text)'\(mode.map { " of mode \($0.rawValue)" } ?? "")")
        }
        return (out, kept)
    }

    // MARK: Training

    func runTraining(_ levelList: [Level], _ files: [String], sigma: Double) throws {
        guard let out else { throw UserError("--out: give the policy file to write, e.g. --out Agents/linear.json") }
        guard out.hasSuffix(".json") else { throw UserError("--out: '\(out)' must end in .json") }
        var config = TrainingConfig(levels: levelList)
        config.seed = seed
        config.iterations = iterations
        config.population = population
        config.episodesPerLevel = episodes ?? 2
        config.sigma = sigma
        config.evalEpisodesPerLevel = evalEpisodes
        config.curveEpisodesPerLevel = curveEpisodes
        if let problem = config.problem { throw UserError("--" + problem) }
        let curvePath = String(out.dropLast(".json".count)) + ".curve.csv"
        let info = PolicyDocument.TrainingInfo(config, files: files)

        var state = Trainer.start(config)
        if FileManager.default.fileExists(atPath: out) {
            let data = FileManager.default.contents(atPath: out) ?? Data()
            let saved: PolicyDocument
            do { saved = try PolicyDocument.decode(data, path: out) } catch { throw UserError("\(error)") }
            guard let savedInfo = saved.training, let savedState = saved.state else {
                throw UserError("\(out): holds weights without a training state; choose another --out to train")
            }
            let diff = savedInfo.differences(from: info)
            if !diff.isEmpty {
                throw UserError(lines: ["\(out): was trained with other settings, so it cannot be resumed:"]
                                + diff.map { "  \($0)" } + ["  (rerun with the saved settings, or choose another --out)"])
            }
            if savedState.iteration > iterations {
                throw UserError("--iterations: \(iterations), but \(out) already has \(savedState.iteration) iterations")
            }
            if saved.complete && savedState.iteration == iterations {
                printLine("\(out): already trained (\(iterations) iterations, same settings); nothing to do")
                return
            }
            state = savedState
            if state.iteration > 0 { printLine("\(out): resuming after iteration \(state.iteration) of \(iterations)") }
        }

        let started = Date()
        let offset = state.curve.last?.seconds ?? 0
        let tty = isatty(1) != 0
        while state.iteration < iterations {
            var point = Trainer.iterate(&state, config, threads: threads)
            point.seconds = offset + Date().timeIntervalSince(started)
            state.curve[state.curve.count - 1] = point
            try Files.write(try policyJSON(PolicyDocument(config: config, files: files, state: state, evaluation: nil)), to: out)
            try Files.write(Self.curveCSV(state.curve), to: curvePath)
            let line = String(format: "iteration %d/%d: fitness mean %.3f best %.3f elite %.3f; eval win %.3f orange %.3f; %.0f s",
                              point.iteration, iterations, point.meanFitness, point.bestFitness, point.eliteFitness,
                              point.evalWinRate, point.evalOrangeFraction, point.seconds)
            if tty {
                FileHandle.standardOutput.write(Data(("\r\u{1B}[K" + line + (state.iteration == iterations ? "\n" : "")).utf8))
            } else {
                printLine(line)
            }
        }
        let evaluation = Trainer.finalEvaluation(state, config, threads: threads)
        let doc = PolicyDocument(config: config, files: files, state: state, evaluation: evaluation)
        try Files.write(try policyJSON(doc), to: out)
        try Files.write(Self.curveCSV(state.curve), to: curvePath)
        printLine(String(format: "wrote %@ (weights %@): on %d level%@ x %d episodes at sigma 0, win rate %.3f, orange cleared %.3f; curve %@",
                         out, doc.weightsHash, levelList.count, levelList.count == 1 ? "" : "s", evaluation.episodesPerLevel, evaluation.winRate,
                         evaluation.orangeFraction, curvePath))
    }

    static func curveCSV(_ curve: [CurvePoint]) -> String {
        var s = "iteration,mean_fitness,best_fitness,elite_fitness,eval_win_rate,eval_orange_fraction,seconds\n"
        for p in curve {
            s += String(format: "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.2f\n", p.iteration, p.meanFitness, p.bestFitness,
                        p.eliteFitness, p.evalWinRate, p.evalOrangeFraction, p.seconds)
        }
        return s
    }

    // MARK: Evaluation

    func runEvaluation(_ file: String, _ levelList: [Level], _ files: [String], sigma: Double) throws {
        let agent: LinearAgent
        do { agent = try LinearAgent.load(path: file) } catch { throw UserError("\(error)") }
        let n = episodes ?? 100
        let linear = Trainer.evaluate(agent, levels: levelList, episodesPerLevel: n, sigma: sigma, threads: threads)
        let random = Trainer.evaluate(try AgentFactory.make(.random), levels: levelList, episodesPerLevel: n, sigma: sigma, threads: threads)
        printLine("\(file) (weights \(agent.weightsHash)) against random: \(n) episodes per level, seeds 0..<\(n), sigma \(LevelCodec.number(sigma))")
        printLine("")
        printLine("| level | linear win | linear orange | random win | random orange |")
        printLine("|---|---|---|---|---|")
        for (a, b) in zip(linear.levels, random.levels) {
            printLine(String(format: "| %@ | %.2f | %.3f | %.2f | %.3f |", a.name, a.winRate, a.orangeFraction, b.winRate, b.orangeFraction))
        }
        printLine(String(format: "| **mean** | %.3f | %.3f | %.3f | %.3f |", linear.winRate, linear.orangeFraction,
                         random.winRate, random.orangeFraction))
    }
}

/// The policy file's text; a weight that diverged to NaN or infinity is a clear error, not a crash.
func policyJSON(_ doc: PolicyDocument) throws -> String {
    do { return try doc.json } catch {
        throw UserError("the policy cannot be written: a weight is not a finite number (the training diverged)")
    }
}
