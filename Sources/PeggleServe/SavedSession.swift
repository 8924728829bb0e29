import Foundation
import PeggleEnv
import PeggleGame

/// A session's environments as bytes (`save_state`, `load_state`; the native library's pickles):
/// a binary property list, which keeps every double and float bit for bit (NaN, -0 and all).
/// Loaded into a session made by the same `make` request of the same engine, it gives back the
/// same episodes as the session it was saved from. Snapshots are not part of it.
struct SavedSession: Codable {
    /// Raised when the layout changes; a state of another format is refused by name.
    static let currentFormat = 1

    var format: Int
    /// The engine that saved it: another version may play the same state differently.
    var engine: String
    var levelNames: [String]
    var vector: VectorEnv.Saved
}

extension ServeSession {
    /// The made environments' state.
    func saveState() throws(EnvError) -> [UInt8] {
        guard let v = vec else { throw EnvError(.notMade, "save_state: send make first") }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let saved = SavedSession(format: SavedSession.currentFormat, engine: PeggleGym.version, levelNames: levelNames,
                                 vector: v.saved)
        do {
            return [UInt8](try encoder.encode(saved))
        } catch {
            throw EnvError(.internal, "save_state: \(error)")
        }
    }

    /// Puts a saved state back into the made environments: refused, naming why and changing
    /// nothing, unless it was saved by this engine from environments made as these were.
    func loadState(_ bytes: [UInt8]) throws(EnvError) {
        guard var v = vec else { throw EnvError(.notMade, "load_state: send make first") }
        let saved: SavedSession
        do {
            saved = try PropertyListDecoder().decode(SavedSession.self, from: Data(bytes))
        } catch {
            throw EnvError.badRequest("load_state: these \(bytes.count) bytes are not a state save_state wrote")
        }
        guard saved.format == SavedSession.currentFormat else {
            throw EnvError.badRequest("load_state: the state is in format \(saved.format); this engine reads format \(SavedSession.currentFormat)")
        }
        guard saved.engine == PeggleGym.version else {
            throw EnvError.badRequest("load_state: the state was saved by peggle-gym \(saved.engine); this is \(PeggleGym.version), "
                + "which may play it differently")
        }
        guard saved.levelNames == levelNames else {
            throw EnvError.badRequest("load_state: the state was saved from levels \(saved.levelNames.prefix(3)); "
                + "these environments were made with \(levelNames.prefix(3))")
        }
        do {
            try v.restore(saved.vector)
        } catch {
            throw EnvError.badRequest("load_state: \(error.message)")
        }
        vec = v
    }
}
