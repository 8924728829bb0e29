/// The world's per-ball and per-step data, in raw buffers owned by one object: balls, their
/// sub-step scratch, and the contacts of the latest step. Shared between copies of a world until
/// one of them changes (copy on write), so a step does one uniqueness check and then works on
/// plain memory: no reference counting, no bounds checks, no allocation.
@usableFromInline
final class WorldBuffers: @unchecked Sendable {
    // Mutated only by a world that holds the only reference (see `PhysicsWorld.makeUnique`).
    let ballCapacity: Int
    let contactCapacity: Int
    @usableFromInline let balls: UnsafeMutablePointer<Ball>
    let scratch: UnsafeMutablePointer<BallScratch>
    @usableFromInline let contacts: UnsafeMutablePointer<Contact>
    /// The two counts live in raw memory too: a `var` of a class seen from other modules would
    /// need a run-time exclusivity check on every access.
    @usableFromInline let counts: UnsafeMutablePointer<Int>
    /// The world's `config` (immutable), in raw memory so the step can borrow it in place.
    let config: UnsafeMutablePointer<PhysicsConfig>
    @inlinable var ballCount: Int {
        get { counts[0] }
        set { counts[0] = newValue }
    }
    @inlinable var contactCount: Int {
        get { counts[1] }
        set { counts[1] = newValue }
    }

    init(ballCapacity: Int, contactCapacity: Int, config: PhysicsConfig) {
        self.ballCapacity = ballCapacity
        self.contactCapacity = contactCapacity
        self.config = .allocate(capacity: 1)
        self.config.initialize(to: config)
        balls = .allocate(capacity: ballCapacity)
        scratch = .allocate(capacity: ballCapacity)
        contacts = .allocate(capacity: contactCapacity)
        counts = .allocate(capacity: 2)
        counts.initialize(repeating: 0, count: 2)
    }

    /// An independent copy of the balls and contacts (scratch is rebuilt every sub-step).
    func copy() -> WorldBuffers {
        let c = WorldBuffers(ballCapacity: ballCapacity, contactCapacity: contactCapacity, config: config.pointee)
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
        counts.deallocate()
        config.deinitialize(count: 1)
        config.deallocate()
    }
}

/// A read-only view of one of the world's buffers (its balls, or its latest contacts) with value
/// semantics: it holds the buffer's owner, so a world that changes while a view is alive copies
/// its buffers first, and the view keeps what the world held when it was taken.
public struct WorldView<Element>: RandomAccessCollection {
    @usableFromInline let owner: WorldBuffers
    @usableFromInline let base: UnsafeMutablePointer<Element>
    public let count: Int

    @inlinable init(owner: WorldBuffers, base: UnsafeMutablePointer<Element>, count: Int) {
        self.owner = owner
        self.base = base
        self.count = count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inlinable public subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "index out of range")
        return base[i]
    }
}

extension WorldView: Equatable where Element: Equatable {
    public static func == (a: WorldView, b: WorldView) -> Bool { a.elementsEqual(b) }
}

// The buffer is never written while a view shares it (copy on write), so views may cross threads.
extension WorldView: @unchecked Sendable where Element: Sendable {}

/// The balls in play, in the order they entered.
public typealias BallList = WorldView<Ball>

/// The contacts of the latest step, in order.
public typealias ContactList = WorldView<Contact>
