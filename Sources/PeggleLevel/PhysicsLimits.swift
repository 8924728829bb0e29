import PegglePhysics

extension Level {
    /// What in this level the physics `rules` ask for cannot play yet, one issue a reason (empty:
    /// it plays it). Version 1 plays every valid level; version 2 (issue 51) flies one ball among
    /// fixed obstacles, so it refuses boards that turn and levels that put several balls in play,
    /// whole, rather than play them wrong. Part of `validate(rules:)`, so every command that checks
    /// a level names the file and the reason.
    public func physicsIssues(rules: Rules) -> [LevelIssue] {
        guard rules.physicsVersion == .timeOfImpact else { return [] }
        let prefix = "physics \(rules.physicsVersion) cannot play this yet: "
        var out: [LevelIssue] = []
        let confusement = count(of: .confusement), zombie = count(of: .zombie), green = count(of: .green)
        if confusement > 0 {
            out.append(LevelIssue(path: "pegs", message: prefix + "\(confusement) confusement peg(s) turn the board (every obstacle moves)"))
        }
        if zombie > 0 {
            out.append(LevelIssue(path: "pegs", message: prefix + "\(zombie) zombie peg(s) become balls (several balls in play)"))
        }
        if power == .multiball && green > 0 {
            out.append(LevelIssue(path: "power", message: prefix + "power multiball with \(green) green peg(s) splits the ball (several balls in play)"))
        }
        if rules.physics.substeps != 1 {
            out.append(LevelIssue(path: "", message: prefix
                + "physics substeps \(rules.physics.substeps) (version 2 budgets events per timeStep, as version 1 with substeps 1)"))
        }
        return out
    }
}
