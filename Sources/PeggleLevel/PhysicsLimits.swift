import PegglePhysics

extension Level {
    /// What in this level the physics `rules` ask for cannot play, one issue a reason (empty: it
    /// plays it). Part of `validate(rules:)`, so every command that checks a level names the file
    /// and the reason. Version 1 plays every valid level. Version 2 flies one ball among fixed
    /// obstacles and hands a shot to version 1's steps where a second ball or a turning board
    /// comes in (`GameState.playVersion2`), so it plays every level too, but only with one
    /// sub-step a step: its event budget is version 1's per step.
    public func physicsIssues(rules: Rules) -> [LevelIssue] {
        guard rules.physicsVersion == .timeOfImpact, rules.physics.substeps != 1 else { return [] }
        return [LevelIssue(path: "", message: "physics \(rules.physicsVersion) cannot play this yet: physics substeps "
            + "\(rules.physics.substeps) (version 2 budgets events per timeStep, as version 1 with substeps 1)")]
    }
}
