/// Which physics plays a game, a rule of play (`Rules.physicsVersion`; issue 51,
/// docs/lab/2026-12-06-second-physics.md). Version 1, the fixed-step engine (`PhysicsWorld`), is
/// the default everywhere and the one every pinned game, stored rating and report was made with;
/// version 2 (`PegglePhysicsTOI`) flies the ball between times of impact and is chosen per run,
/// to be measured against version 1.
public enum PhysicsVersion: Int, Sendable, Equatable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Fixed steps with swept contacts (`PhysicsWorld.step`): today's physics.
    case fixedStep = 1
    /// Closed-form flight from event to event (`FlightSimulator`) for one ball on a fixed board;
    /// the rest of a shot with several balls or a turning board on version 1's steps.
    case timeOfImpact = 2

    /// The default of every run, option and stored game that does not name one.
    public static let standard = PhysicsVersion.fixedStep

    /// "1" or "2": how options, stored games and reports write it.
    public var description: String { String(rawValue) }
}
