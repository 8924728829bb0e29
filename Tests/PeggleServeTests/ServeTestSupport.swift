import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleTestSupport

/// A bundled level by file name ("first-steps").
func bundled(_ name: String) throws -> Level {
    try LevelCodec.decode(Repository.data("Levels/\(name).json"))
}

/// A config over `levels` with the small observations the serve tests make (40 object slots).
func config(_ levels: [Level]) -> EnvConfig {
    var c = EnvConfig(levels: levels)
    c.maxObjects = 40
    return c
}
