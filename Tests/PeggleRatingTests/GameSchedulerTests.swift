import Foundation
import PeggleAgents
import PeggleGame
import PeggleRating
import PeggleUtilities
import Synchronization
import Testing

@Suite struct GameSchedulerTests {
    /// Every job needs the same first choice, and computing it is slow: the other worker must wait
    /// for it, not spin. (It used to put the job back at the end of the queue and take the next,
    /// holding the lock, so the queue grew by millions of jobs while one first choice was computed:
    /// a debug build ran out of memory rating a level whose greedy first choice is slow.)
    @Test func aWorkerWaitsForAFirstChoiceAnotherIsComputingInsteadOfSpinning() {
        let key = GameScheduler.Key(level: 0, agent: 0)
        let jobs = (0..<6).map { GameScheduler.Job(level: 0, agent: 0, seed: UInt64($0), sigma: 0.02) }
        let scheduler = GameScheduler(fixed: jobs, measured: [], stored: [key: [:]], budget: 0)
        let asked = Mutex(0), computed = Mutex(0), played = Mutex<[UInt64]>([])
        Parallel.forEach(2, threads: 2, chunksPerThread: 1) { _ in
            scheduler.work(
                shouldStop: { false },
                // Past 60 questions the answer turns to "no": a spinning worker then plays without the
                // first choice and the test fails instead of spinning for ever (it held the lock, so
                // the worker computing the first choice could never finish).
                sharesFirstChoice: { _ in asked.withLock { $0 += 1; return $0 <= 60 } },
                firstChoice: { _ in
                    computed.withLock { $0 += 1 }
                    Thread.sleep(forTimeInterval: 0.2)
                    return 0.1
                },
                play: { job, first in
                    #expect(first == 0.1)
                    played.withLock { $0.append(job.seed) }
                    return PlayedGame(levelHash: "", levelName: "", agentKind: .random, agentLabel: "", seed: job.seed, sigma: job.sigma,
                                      status: .lost, score: 0, shots: 1, orangeCleared: 0, orangeTotal: 1, ballsUsed: 1, gameSeconds: 1)
                },
                finished: { _, _ in },
                measured: { _, _ in })
        }
        #expect(played.withLock { $0.sorted() } == [0, 1, 2, 3, 4, 5])
        #expect(computed.withLock { $0 } == 1)
        // Each job asks once when taken; a waiting worker asks about the jobs left once per wake-up
        // (at most a few while 0.2 s pass). Spinning asked hundreds of thousands of times.
        #expect(asked.withLock { $0 } < 60)
    }
}
