import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleReports
import PeggleUtilities

/// `peggle estimate LEVEL...`: sigma50 predicted from a level's features, without playing a game.
struct Estimate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Predict levels' sigma50 and tier in milliseconds, without playing games (docs/metrics.md).",
        discussion: """
            The model (fitted by scripts/fit-estimate on a rated corpus) is built into the tool; --model reads another. \
            The interval is the model's 95% predictive interval, wider than a rating's: a rating plays the level.
            """)

    @Argument(help: "Level files, or folders of them.")
    var levels: [String] = []

    @Flag(help: "Print a JSON array: one object per level with level, file, sigma50, sigma50_low, sigma50_high, tier.")
    var json = false

    @Option(help: ArgumentHelp("A model file instead of the built-in one.", valueName: "file"))
    var model: String?

    @Flag(help: "Print the features the model reads, as CSV (file, level, level_hash, then one column per feature), for fitting.")
    var features = false

    @Flag(help: ArgumentHelp("Print what the features are, as JSON, for fitting: the features' version and each feature's name, group and signs, in column order.",
                             discussion: "monotone: the sign a model must give the feature's weight; sign: the one a fit may hold it to (0: free)."))
    var featureList = false

    @Option(help: "Worker threads (default: the machine's cores); the output is the same for any count.")
    var threads: Int?

    func validate() throws {
        if json && features { throw ValidationError("--json and --features: choose one") }
        if featureList {
            // The list is the build's, not a level's: anything else asked with it would be ignored.
            if !levels.isEmpty || json || features || model != nil || threads != nil {
                throw ValidationError("--feature-list: takes no levels and no other option")
            }
        } else if levels.isEmpty {
            throw ValidationError("Missing expected argument '<levels> ...'")
        }
    }

    /// What one file gives: its level's name and hash, and its features or estimate.
    struct Row: Sendable {
        var name: String, hash: String
        var features: LevelFeatures
        var estimate: Sigma50Estimate?
    }

    func run() throws {
        if featureList {
            printLine(try JSON.text(["version": LevelFeatures.version, "features": EstimateFeature.all.map {
                ["name": $0.name, "group": $0.group, "monotone": $0.trend.monotone, "sign": $0.trend.sign] as [String: Any]
            }]))
            return
        }
        let threadCount = threads ?? ProcessInfo.processInfo.activeProcessorCount
        guard (1...256).contains(threadCount) else { throw UserError("--threads: \(threadCount) is outside 1...256") }
        let files = try Files.levelFiles(levels)
        let m = features ? nil : try loadModel()
        let modelName = model.map { "--model \($0) cannot estimate it" } ?? "the built-in model cannot estimate it"
        // Every level on its own thread's turn (reading, preparing and its features are most of the
        // time, about 11 ms a level); a level's row depends on it alone, so the output is the same
        // for any thread count, and a refusal is the first file's in order, before anything is printed.
        let rows = try Parallel.map(files.count, threads: threadCount, chunksPerThread: Int.max) { i -> Result<Row, UserError> in
            let file = files[i]
            do {
                let level = try Files.loadLevel(file)
                let p: PreparedLevel
                do { p = try PreparedLevel(level) } catch { throw UserError("\(file): \(error)") }
                let f = LevelFeatures(p)
                var row = Row(name: level.name, hash: p.hash, features: f, estimate: nil)
                if let m {
                    // A model that loads may still overflow on a level far from the ones it was fitted on.
                    let y = m.predictLog(f)
                    guard y.isFinite else {
                        throw UserError("\(file): the model predicts ln sigma50 = \(EstimateModel.text(y)) for this level, not a number; "
                            + modelName)
                    }
                    row.estimate = Sigma50Estimate(features: f, model: m)
                }
                return .success(row)
            } catch let e as UserError {
                return .failure(e)
            } catch {
                return .failure(UserError("\(file): \(error)"))
            }
        }.map { try $0.get() }
        if features {
            print(CSVReport.record(["file", "level", "level_hash"] + LevelFeatures.names), terminator: "")
            for (file, r) in zip(files, rows) {
                print(CSVReport.record([file, r.name, r.hash]
                                       + r.features.values.map { DecimalText.significant($0, digits: 9, maxDecimals: 12) }), terminator: "")
            }
            return
        }
        let estimates = rows.compactMap(\.estimate)  // every row has one: a model was loaded
        if json {
            let objects: [[String: Any]] = zip(files, zip(rows, estimates)).map { file, pe in
                ["level": pe.0.name, "file": file, "sigma50": pe.1.sigma50, "sigma50_low": pe.1.low,
                 "sigma50_high": pe.1.high, "tier": pe.1.tier.rawValue,
                 "out_of_distribution": pe.1.outOfDistribution, "distance": pe.1.distance ?? NSNull()]
            }
            printLine(try JSON.text(objects))
            return
        }
        for (r, e) in zip(rows, estimates) {
            func s(_ v: Double) -> String { DecimalText.significant(v, digits: 2) }
            printLine("\(r.name): sigma50 about \(s(e.sigma50)) (95% predictive interval \(s(e.low)) to \(s(e.high))), \(e.tier.rawValue)"
                + (e.outOfDistribution ? "; \(Sigma50Estimate.guessing)" : ""))
        }
    }

    func loadModel() throws -> EstimateModel {
        guard let path = model else { return EstimateModel.builtIn }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw UserError("--model \(path): no such file")
        }
        if isFolder.boolValue { throw UserError("--model \(path): is a folder, not a model file") }
        let data: Data
        // Through a file handle: Foundation's Data(contentsOf:) fails on a readable device such
        // as /dev/null with "Permission denied", a wrong reason (issue 50); read, it is empty.
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw UserError("--model \(path): cannot be read (\(Files.reason(error)))")
        }
        if data.isEmpty { throw UserError("--model \(path): the file is empty, not a model file") }
        do { return try EstimateModel.decode(data) } catch { throw UserError("--model \(path): \(error)") }
    }
}
