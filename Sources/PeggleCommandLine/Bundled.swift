import Foundation
import PeggleAgents
import PeggleLevelFiles

/// The defaults that name files of a source checkout work from any folder (docs/distribution.md,
/// "From any folder"): `rate`'s default agents name `linear:Agents/linear.json`, and the studio
/// opens `Levels`. In a checkout those are the files; elsewhere (an installed wheel's `peggle`, run
/// from any folder) the policy is the copy built into the binary, and the levels are the wheel's
/// own, `peggle_gym/levels`, beside `peggle_gym/bin/peggle`. A path that exists is always the file
/// it names. (`peggle-bench`, which plays `Levels/...` by default, runs in a checkout only.)
package enum Bundled {
    /// The linear policy of `rate`'s default agents, relative to a checkout.
    package static let linearPolicy = "Agents/linear.json"
    /// The bundled levels' folder, relative to a checkout.
    package static let levels = "Levels"

    /// Agents/linear.json as built into the binary (Sources/PeggleCommandLine/Builtin/linear.json is a link to it).
    package static var linearPolicyData: Data { Data(PackageResources.linear_json) }

    /// The linear agent `linear:PATH` names: the file, or for the default policy's path with no
    /// such file here, the built-in copy.
    package static func linearAgent(_ path: String) throws(PolicyFileError) -> LinearAgent {
        if playsBuiltIn(path) {
            return try LinearAgent.load(data: linearPolicyData, path: "\(path) (built into peggle)")
        }
        return try LinearAgent.load(path: path)
    }

    /// Whether `linear:PATH` plays the built-in copy: the default policy's path, with no such file here.
    package static func playsBuiltIn(_ path: String) -> Bool {
        path == linearPolicy && !FileManager.default.fileExists(atPath: path)
    }

    /// The file the agent `spec` is made from (`AgentFactory`: a kind's argument is a file), nil
    /// for a kind without an argument and for the default linear policy's built-in copy.
    package static func file(of spec: AgentSpec) -> String? {
        guard AgentFactory.entry(spec.kind.rawValue)?.argument != nil, let path = spec.argument else { return nil }
        return spec.kind == .linear && playsBuiltIn(path) ? nil : path
    }

    /// The running executable's path.
    package static var executable: String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? Bundle.main.executablePath
    }

    /// The levels of the wheel this executable came in (`peggle_gym/levels` beside `peggle_gym/bin`), if any.
    package static var wheelLevels: String? {
        guard let executable else { return nil }
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("levels").path
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue ? folder : nil
    }

    /// The studio's folder `path`: when it is the checkout's `Levels`, does not exist here and the
    /// wheel's levels do, it is made with a copy of each bundled level (they open read-only and save
    /// as copies, as in a checkout), and the copies are named on standard error.
    package static func studioFolder(_ path: String) throws -> String {
        guard path == levels, !FileManager.default.fileExists(atPath: path), let wheel = wheelLevels else { return path }
        let files: [String]
        do {
            files = try LevelFolder.levelFileNames(in: wheel)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for file in files {
                try FileManager.default.copyItem(atPath: wheel + "/" + file, toPath: path + "/" + file)
            }
        } catch {
            throw UserError("--levels: \(path): could not copy the bundled levels from \(wheel) into it (\(error.localizedDescription))")
        }
        FileHandle.standardError.write(Data("studio: made the folder \(path) with a copy of the \(files.count) bundled levels (from \(wheel))\n".utf8))
        return path
    }
}
