/// The world's per-ball and per-step data, in raw buffers owned by one object: balls, their
/// sub-step scratch, and the contacts of the latest step. Shared between copies of a world until
/// one of them changes (copy on write), so a step does one uniqueness check and then works on
/// plain memory: no reference counting, no bounds checks, no allocation.
final class WorldBuffers: @unchecked Sendable {
    // Mutated only by a world that holds the only reference (see `PhysicsWorld.makeUnique`).
    let ballCapacity: Int
    let contactCapacity: Int
    let balls: UnsafeMutablePointer<Ball>
    let scratch: UnsafeMutablePointer<BallScratch>
    let contacts: UnsafeMutablePointer<Contact>
    var ballCount = 0
    var contactCount = 0

    init(ballCapacity: Int, contactCapacity: Int) {
        self.ballCapacity = ballCapacity
        self.contactCapacity = contactCapacity
        balls = .allocate(capacity: ballCapacity)
        scratch = .allocate(capacity: ballCapacity)
        contacts = .allocate(capacity: contactCapacity)
    }

    /// An independent copy of the balls and contacts (scratch is rebuilt every sub-step).
    func copy() -> WorldBuffers {
        let c = WorldBuffers(ballCapacity: ballCapacity, contactCapacity: contactCapacity)
        c.balls.initialize(from: balls, count: ballCount)
        c.contacts.initialize(from: contacts, count: contactCount)
        c.ballCount = ballCount
        c.contactCount = contactCount
        return c
    }

    /// Appends a contact; the capacity covers every event the per-ball budgets allow.
    @inline(__always)
    func append(_ c: Contact) {
        guard contactCount < contactCapacity else { return }
        contacts[contactCount] = c
        contactCount += 1
    }

    /// Removes the ball at `index`, keeping the others in order.
    func removeBall(at index: Int) {
        for k in index..<(ballCount - 1) { balls[k] = balls[k + 1] }
        ballCount -= 1
    }

    deinit {
        balls.deallocate()
        scratch.deallocate()
        contacts.deallocate()
    }
}

/// The balls in play, in the order they entered: a read-only collection with value semantics
/// (it keeps what the world held when it was taken, even if the world steps on).
public struct BallList: RandomAccessCollection, Sendable, Equatable {
    let buffers: WorldBuffers
    public let count: Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public subscript(i: Int) -> Ball {
        precondition(i >= 0 && i < count, "ball index out of range")
        return buffers.balls[i]
    }
    public static func == (a: BallList, b: BallList) -> Bool { a.elementsEqual(b) }
}

/// The contacts of the latest step, in order: a read-only collection with value semantics.
public struct ContactList: RandomAccessCollection, Sendable, Equatable {
    let buffers: WorldBuffers
    public let count: Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public subscript(i: Int) -> Contact {
        precondition(i >= 0 && i < count, "contact index out of range")
        return buffers.contacts[i]
    }
    public static func == (a: ContactList, b: ContactList) -> Bool { a.elementsEqual(b) }
}
