import PeggleEnv
import PeggleGame
import PeggleTestSupport
import Testing

@Suite("VectorEnv")
struct VectorEnvTests {
    static let levels = [tinyLevel(name: "A", balls: 2), tinyLevel(name: "B", balls: 3)]

    /// Row i of the batch.
    static func row(_ v: VectorEnv, _ i: Int) -> [Float] {
        Array(v.observations[(i * v.observationSize)..<((i + 1) * v.observationSize)])
    }

    @Test func seedingMatchesGymnasium() throws {
        // reset(seed: s) resets environment i with s + i: the same as a lone env seeded s + i.
        var v = try VectorEnv(config: config(Self.levels), count: 4)
        try v.reset(seed: 100)
        for i in 0..<4 {
            var lone = try PeggleEnv(config: config(Self.levels))
            let (obs, info) = try lone.reset(seed: 100 + UInt64(i))
            #expect(Self.row(v, i) == obs)
            #expect(v.slots[i].info == info)
        }
    }

    /// Next-step: the step that ends an episode reports it; the next step resets that env
    /// (ignoring its action) with reward 0 and both flags false; its generator carries on.
    @Test func nextStepAutoreset() throws {
        var v = try VectorEnv(config: config(Self.levels, maxShots: 3), count: 2, autoreset: .nextStep)
        var lone = try PeggleEnv(config: config(Self.levels, maxShots: 3))
        try v.reset(seed: 5)
        _ = try lone.reset(seed: 5)
        var endedAt: Int?
        for t in 0..<20 {
            let a = actions(2, seed: UInt64(t))
            let wasEnded = v.slots[0].ended
            try v.step(a)
            if wasEnded {
                #expect(v.slots[0].reward == 0 && !v.slots[0].terminated && !v.slots[0].truncated)
                #expect(v.slots[0].info.shot == nil, "a reset's info")
                let (obs, info) = try lone.reset()  // the same generator, continued
                #expect(Self.row(v, 0) == obs)
                #expect(v.slots[0].info == info)
                try #require(endedAt != nil)
                break
            }
            let s = try lone.step(a[0])
            #expect(Self.row(v, 0) == s.observation)
            #expect(v.slots[0].reward == s.reward)
            if s.terminated || s.truncated { endedAt = t }
        }
        #expect(endedAt != nil, "episodes of at most 3 shots end within the loop")
    }

    /// Same-step: the env resets within the ending step; the final observation and info are handed back.
    @Test func sameStepAutoreset() throws {
        var v = try VectorEnv(config: config(Self.levels, maxShots: 3), count: 3, autoreset: .sameStep)
        var lone = try PeggleEnv(config: config(Self.levels, maxShots: 3))
        try v.reset(seed: 9)
        _ = try lone.reset(seed: 9)
        var sawFinal = false
        for t in 0..<12 {
            let a = actions(3, seed: 50 + UInt64(t))
            try v.step(a)
            let s = try lone.step(a[0])
            #expect(v.slots[0].reward == s.reward && v.slots[0].terminated == s.terminated && v.slots[0].truncated == s.truncated)
            if s.terminated || s.truncated {
                sawFinal = true
                #expect(v.slots[0].hasFinal)
                let size = v.observationSize
                #expect(Array(v.finalObservations[0..<size]) == s.observation)
                #expect(v.slots[0].finalInfo == s.info)
                let (obs, info) = try lone.reset()
                #expect(Self.row(v, 0) == obs)
                #expect(v.slots[0].info == info)
            } else {
                #expect(!v.slots[0].hasFinal)
                #expect(Self.row(v, 0) == s.observation)
            }
        }
        #expect(sawFinal)
    }

    /// Disabled: an ended env must be reset through a mask before it can step again; the mask
    /// resets only the envs it names.
    @Test func disabledAutoreset() throws {
        var v = try VectorEnv(config: config(Self.levels, maxShots: 1), count: 2, autoreset: .disabled)
        try v.reset(seed: 2)
        try v.step([0.1, -0.1])
        #expect(v.slots.allSatisfy { $0.ended })
        #expect { try v.step([0, 0]) } throws: { ($0 as? EnvError)?.code == .episodeOver }
        let untouched = Self.row(v, 1)
        try v.reset(mask: [true, false])
        #expect(Self.row(v, 1) == untouched)
        #expect(!v.slots[0].ended && v.slots[1].ended)
        #expect { try v.step([0, 0]) } throws: { ($0 as? EnvError)?.code == .episodeOver }
        try v.reset(mask: [false, true])
        try v.step([0.2, 0.3])
        #expect { try v.reset(mask: [false, false]) } throws: { ($0 as? EnvError)?.code == .badRequest }
        #expect { try v.reset(mask: [true]) } throws: { ($0 as? EnvError)?.code == .badRequest }
    }

    @Test func refusedStepsChangeNothing() throws {
        var v = try VectorEnv(config: config(Self.levels), count: 3)
        #expect { try v.step([0, 0, 0]) } throws: { ($0 as? EnvError)?.code == .notReset }
        try v.reset(seed: 1)
        let before = v.observations
        #expect { try v.step([0, 0]) } throws: { ($0 as? EnvError)?.code == .badAction }
        #expect { try v.step([0, .nan, 0]) } throws: { ($0 as? EnvError)?.code == .badAction }
        #expect { try v.step([0, 0, 1.01]) } throws: { ($0 as? EnvError)?.code == .badAction }
        #expect(v.observations == before)
        #expect(v.envs.allSatisfy { $0.shots == 0 })
    }

    /// The same run with 1, 2, 3 or 16 threads gives the same bits.
    @Test func threadCountDoesNotChangeResults() throws {
        let levels = Self.levels + [try bundled("zombie-night"), try bundled("upside-down")]
        func run(threads: Int) throws -> UInt64 {
            var v = try VectorEnv(config: config(levels, maxShots: 5), count: 16, autoreset: .sameStep, threads: threads)
            try v.reset(seed: 77)
            var h = FNV1a()
            for t in 0..<25 {
                try v.step(actions(16, seed: 1000 + UInt64(t)))
                h.add(v.observations)
                h.add(v.rewards)
                h.add(v.finalObservations)
                for s in v.slots { h.add(UInt64(s.info.score)) }
            }
            return h.value
        }
        let one = try run(threads: 1)
        for t in [2, 3, 16] { #expect(try run(threads: t) == one, "\(t) threads") }
    }

    /// A copy of the vector is a snapshot: stepping the original and restoring the copy replays.
    @Test func snapshotAndRestore() throws {
        var v = try VectorEnv(config: config(Self.levels), count: 4, threads: 2)
        try v.reset(seed: 3)
        try v.step(actions(4, seed: 1))
        let snap = v
        try v.step(actions(4, seed: 2))
        let after = (v.observations, v.rewards)
        v = snap
        try v.step(actions(4, seed: 2))
        #expect(v.observations == after.0 && v.rewards == after.1)
    }
}
