import PeggleUtilities

extension Level {
    /// Hash of what is played: the canonical JSON with the name, author, description and
    /// read-only flag blanked, so renaming or describing a level keeps its ratings, and any change
    /// to an object, the mode or the power makes it a new level.
    public var contentHash: String {
        var played = self
        played.name = ""
        played.author = nil
        played.description = nil
        played.readOnly = false
        return ContentHash.hex(LevelCodec.encode(played))
    }
}
