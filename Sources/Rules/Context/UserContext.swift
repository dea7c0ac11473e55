import Synchronization

/// What specd knows of one user (docs/api.md, "Contexts"): the input of every evaluation.
///
/// A value with one reference: the fields live in a shared box, copied on write. A write handed the context from
/// the store to the flag diff, the triggers, the streams and the clock, and each copy of eleven fields retained
/// and released eleven buffers; a copy now retains one. The box is a `ManagedBuffer` header, reached through its
/// pointer, so reads and in-place changes pay no dynamic exclusivity check (`header` and a class's stored
/// property both do: a check per field read was a tenth of an evaluation).
///
/// Sendable as a value is: the box is changed only while uniquely referenced (`makeUnique`), so a box another copy
/// can see never changes.
public struct UserContext: @unchecked Sendable, Equatable {
    @usableFromInline
    struct Fields: Equatable {
        @usableFromInline var launchedAt: Instant?
        @usableFromInline var timeZone: String?
        @usableFromInline var counters: CompactMap<Int> = [:]
        @usableFromInline var events: CompactMap<Instant> = [:]
        @usableFromInline var flags: CompactMap<Bool> = [:]
        @usableFromInline var attributes: CompactMap<JSONValue> = [:]
        @usableFromInline var segments: SegmentSet = []
        @usableFromInline var donations: CompactMap<DonationSummary> = [:]
        @usableFromInline var triggerFires: CompactMap<Instant> = [:]
        @usableFromInline var expiries = ValueExpiries()
        @usableFromInline var display: CompactMap<DisplayState> = [:]

        @usableFromInline init() {}
    }

    /// The box's contents: the fields, first (`fields` points at them), and the box's number.
    @usableFromInline
    struct Header {
        @usableFromInline var fields: Fields
        /// Given when the box is made, never given again: what an `Identity` remembers of the box.
        @usableFromInline let number: UInt64

        @usableFromInline init(_ fields: Fields) {
            self.fields = fields
            number = UserContext.boxesMade.add(1, ordering: .relaxed).newValue
        }
    }

    @usableFromInline typealias Box = ManagedBuffer<Header, UInt8>

    @usableFromInline var box: Box

    /// How many boxes were made: the next box's number. Boxes are made by writes (copy on write) and decoders.
    @usableFromInline static let boxesMade = Atomic<UInt64>(0)

    /// Every empty context shares one box until it is first changed: an unknown user's read allocates nothing.
    /// Never changed itself: this reference keeps it from ever being unique.
    @usableFromInline nonisolated(unsafe) static let emptyBox = Box.create(minimumCapacity: 0) { _ in Header(Fields()) }

    @inlinable public init() { box = Self.emptyBox }

    /// A context made whole at once (a decoder's): one box, where setting each field in turn made sure of the
    /// box's uniqueness at every one.
    public init(
        launchedAt: Instant?, timeZone: String?, counters: CompactMap<Int>, events: CompactMap<Instant>,
        flags: CompactMap<Bool>, attributes: CompactMap<JSONValue>, segments: SegmentSet,
        donations: CompactMap<DonationSummary>, triggerFires: CompactMap<Instant>
    ) {
        var fields = Fields()
        fields.launchedAt = launchedAt
        fields.timeZone = timeZone
        fields.counters = counters
        fields.events = events
        fields.flags = flags
        fields.attributes = attributes
        fields.segments = segments
        fields.donations = donations
        fields.triggerFires = triggerFires
        // Nothing set is the empty context, which shares one box (`init()`).
        let empty =
            launchedAt == nil && timeZone == nil && counters.isEmpty && events.isEmpty && flags.isEmpty && attributes.isEmpty
            && segments.isEmpty && donations.isEmpty && triggerFires.isEmpty
        box = empty ? Self.emptyBox : Box.create(minimumCapacity: 0) { _ in Header(fields) }
    }

    /// The fields in the box. The pointer outlives `withUnsafeMutablePointerToHeader`'s closure on purpose: a heap
    /// object never moves, and every use below is within a get or a modify of `self`, which holds `box` alive.
    @inlinable
    var fields: UnsafeMutablePointer<Fields> {
        // `fields` is the header's first member (a test holds it to offset 0), so the header's address is theirs.
        box.withUnsafeMutablePointerToHeader { UnsafeMutableRawPointer($0).assumingMemoryBound(to: Fields.self) }
    }

    /// The box's number (`Header.number`).
    @inlinable
    var boxNumber: UInt64 { box.withUnsafeMutablePointerToHeader { $0.pointee.number } }

    /// The fields, in a box no other copy sees: what every setter and in-place change writes through.
    @inlinable
    var uniqueFields: UnsafeMutablePointer<Fields> {
        mutating get {
            makeUnique()
            return fields
        }
    }

    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) {
            let copy = fields.pointee
            box = Box.create(minimumCapacity: 0) { _ in Header(copy) }
        }
    }

    public static func == (lhs: UserContext, rhs: UserContext) -> Bool {
        lhs.box === rhs.box || lhs.fields.pointee == rhs.fields.pointee
    }

    /// Whether both are the same stored value: one box, which no change reaches while two copies hold it (a change
    /// copies the box first). `false` says nothing: equal contexts may sit in two boxes.
    public func sharesStorage(with other: UserContext) -> Bool { box === other.box }

    /// A context's box remembered without keeping it alive: whoever holds this can tell whether a context it meets
    /// again is the very value it saw (`sharesStorage`), and holds none of the user's data. It keeps the box's
    /// number, which no other box is ever given: once the store has let that value go (a write replaced it, or the
    /// user was erased), no context it meets has that number. A weak reference did the same, but gave every
    /// remembered box the runtime's side table, through which each retain and release of it then went.
    public struct Identity: Sendable {
        private let number: UInt64

        public init(_ context: UserContext) { number = context.boxNumber }

        public func names(_ context: UserContext) -> Bool { number == context.boxNumber }
    }

    public var launchedAt: Instant? {
        @inlinable get { fields.pointee.launchedAt }
        @inlinable set { uniqueFields.pointee.launchedAt = newValue }
    }
    /// IANA zone name; `nil` means UTC.
    public var timeZone: String? {
        @inlinable get { fields.pointee.timeZone }
        @inlinable set { uniqueFields.pointee.timeZone = newValue }
    }
    public var counters: CompactMap<Int> {
        @inlinable _read { yield fields.pointee.counters }
        @inlinable _modify { yield &uniqueFields.pointee.counters }
        @inlinable set { uniqueFields.pointee.counters = newValue }
    }
    public var events: CompactMap<Instant> {
        @inlinable _read { yield fields.pointee.events }
        @inlinable _modify { yield &uniqueFields.pointee.events }
        @inlinable set { uniqueFields.pointee.events = newValue }
    }
    public var flags: CompactMap<Bool> {
        @inlinable _read { yield fields.pointee.flags }
        @inlinable _modify { yield &uniqueFields.pointee.flags }
        @inlinable set { uniqueFields.pointee.flags = newValue }
    }
    public var attributes: CompactMap<JSONValue> {
        @inlinable _read { yield fields.pointee.attributes }
        @inlinable _modify { yield &uniqueFields.pointee.attributes }
        @inlinable set { uniqueFields.pointee.attributes = newValue }
    }
    public var segments: SegmentSet {
        @inlinable _read { yield fields.pointee.segments }
        @inlinable _modify { yield &uniqueFields.pointee.segments }
        @inlinable set { uniqueFields.pointee.segments = newValue }
    }
    public var donations: CompactMap<DonationSummary> {
        @inlinable _read { yield fields.pointee.donations }
        @inlinable _modify { yield &uniqueFields.pointee.donations }
        @inlinable set { uniqueFields.pointee.donations = newValue }
    }
    /// When each trigger last fired for this user (throttles survive rule replacement).
    public var triggerFires: CompactMap<Instant> {
        @inlinable _read { yield fields.pointee.triggerFires }
        @inlinable _modify { yield &uniqueFields.pointee.triggerFires }
        @inlinable set { uniqueFields.pointee.triggerFires = newValue }
    }
    /// When the expiring attributes, flags and segments stop counting.
    public var expiries: ValueExpiries {
        @inlinable get { fields.pointee.expiries }
        @inlinable _modify { yield &uniqueFields.pointee.expiries }
        @inlinable set { uniqueFields.pointee.expiries = newValue }
    }
    /// Display accounting per display flag (docs/rules.md, "Display accounting").
    public var display: CompactMap<DisplayState> {
        @inlinable _read { yield fields.pointee.display }
        @inlinable _modify { yield &uniqueFields.pointee.display }
        @inlinable set { uniqueFields.pointee.display = newValue }
    }
}
