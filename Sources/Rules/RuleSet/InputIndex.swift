/// Which flags read each piece of a user's context, built once per rule set: a write then finds the flags its change
/// can reach with one lookup per key it changed, uniting precomputed bit sets, where testing every flag's input set
/// against a set of changed inputs hashed strings for each flag on every write.
///
/// The answer is the one `RuleSet.flagsAffected(by: UserContext.changedInputs(from:to:))` gives, the readable
/// definition it is tested against: a flag is reached when any input it reads differs; a flag whose inputs are
/// unknown (`Flag.inputs == nil`) is reached by every write that changes any input; a write that changes no input
/// reaches nothing. Keys are compared as bytes (`CompactMap`), as in the context itself.
struct InputIndex: Sendable {
    private let flagCount: Int
    /// Flags whose inputs are unknown (JSON Logic may read any attribute).
    private var unknown: FlagBits
    private var counters = CompactMap<FlagBits>()
    private var events = CompactMap<FlagBits>()
    private var flags = CompactMap<FlagBits>()
    private var attributes = CompactMap<FlagBits>()
    private var donations = CompactMap<DonationReaders>()
    private var segments: FlagBits
    private var launchedAt: FlagBits
    private var timeZone: FlagBits
    private var display = CompactMap<FlagBits>()

    /// `flags` in declaration order: a flag's bit is its position there.
    init(flags declared: [Flag]) {
        flagCount = declared.count
        let none = FlagBits(count: declared.count)
        unknown = none
        segments = none
        launchedAt = none
        timeZone = none
        for (position, flag) in declared.enumerated() {
            guard let inputs = flag.inputs else {
                unknown.insert(position)
                continue
            }
            for input in inputs {
                switch input {
                case .counter(let key): Self.add(position, key, to: &counters, none)
                case .event(let key): Self.add(position, key, to: &events, none)
                case .flag(let key): Self.add(position, key, to: &flags, none)
                case .attribute(let key): Self.add(position, key, to: &attributes, none)
                case .donation(let key, let part):
                    var readers = donations[key] ?? DonationReaders(none)
                    readers.insert(position, part)
                    donations[key] = readers
                case .segments: segments.insert(position)
                case .launchedAt: launchedAt.insert(position)
                case .timeZone: timeZone.insert(position)
                case .unknown: unknown.insert(position)
                case .display(let key): Self.add(position, key, to: &display, none)
                }
            }
        }
    }

    /// Whether the flag at `position` has unknown inputs.
    func readsUnknown(_ position: Int) -> Bool { unknown.contains(position) }

    private static func add(_ position: Int, _ key: String, to table: inout CompactMap<FlagBits>, _ none: FlagBits) {
        var bits = table[key] ?? none
        bits.insert(position)
        table[key] = bits
    }

    /// The flags whose answer can differ between two states of one user (`nil` = no user).
    /// Reads each map through the optionals rather than substituting an empty context for a missing one: a whole
    /// `UserContext` copied (and destroyed) twice per write was most of this function's cost.
    func affected(from old: UserContext?, to new: UserContext?) -> FlagBits {
        var reached = FlagBits(count: flagCount)
        guard old != nil || new != nil else { return reached }
        var changed = false
        // Every differing key counts as a change, read by a flag or not: it is what lets the unknown-input flags in.
        func compare<Value>(_ a: CompactMap<Value>?, _ b: CompactMap<Value>?, _ readers: CompactMap<FlagBits>) {
            let a = a ?? CompactMap(), b = b ?? CompactMap()
            if a.sharesStorage(with: b) { return }
            func reach(_ key: String) {
                changed = true
                if let bits = readers[key] { reached.formUnion(bits) }
            }
            // The reducer keeps a map's order (values updated in place, new keys appended), so the two maps
            // mostly hold the same key at the same position: compared pairwise, without a lookup per key, up
            // to the first position where the keys differ. From there on, each key is looked up in the other map.
            let before = a.entries, after = b.entries
            var common = 0
            while common < before.count, common < after.count, sameUTF8(before[common].key, after[common].key) {
                if before[common].value != after[common].value { reach(before[common].key) }
                common += 1
            }
            for entry in before[common...] where b[entry.key] != entry.value { reach(entry.key) }
            for entry in after[common...] where !a.contains(entry.key) { reach(entry.key) }
        }
        // A write changes one or two maps and leaves the others sharing their storage with the state before it:
        // those are passed over in place, where handing each pair to `compare` copied (retained and released) both.
        let kept = old.flatMap { old in new.map { UserContext.MapsKept(old, $0) } } ?? UserContext.MapsKept()
        if !kept.counters { compare(old?.counters, new?.counters, counters) }
        if !kept.events { compare(old?.events, new?.events, events) }
        if !kept.flags { compare(old?.flags, new?.flags, flags) }
        if !kept.attributes { compare(old?.attributes, new?.attributes, attributes) }
        if !kept.donations { compareDonations(old?.donations ?? CompactMap(), new?.donations ?? CompactMap(), &reached, &changed) }
        if !kept.display { compare(old?.display, new?.display, display) }
        func compare(_ differs: Bool, _ readers: FlagBits) {
            guard differs else { return }
            changed = true
            reached.formUnion(readers)
        }
        if !kept.segments { compare((old?.segments ?? []) != (new?.segments ?? []), segments) }
        compare(old?.launchedAt != new?.launchedAt, launchedAt)
        compare(old?.timeZone != new?.timeZone, timeZone)
        if changed { reached.formUnion(unknown) }
        return reached
    }

    /// Donation summaries compared part by part: a repeat donation reaches the readers of the parts it changed
    /// (count, last instant, recent instants), not those of the first donation or of an unchanged last version.
    /// An event donated on one side only reaches every part's readers, as `changedInputs` says.
    private func compareDonations(
        _ a: CompactMap<DonationSummary>, _ b: CompactMap<DonationSummary>, _ reached: inout FlagBits, _ changed: inout Bool
    ) {
        if a.sharesStorage(with: b) { return }
        // Summaries are compared where they lie (`DonationPart.differing`), and only the differing parts passed
        // on: wrapping each in an optional, or handing both to a nested function, copied them (their arrays
        // retained and released) twice per write.
        func reachAll(_ key: String) {
            changed = true
            if let readers = donations[key] { reached.formUnion(readers.all) }
        }
        func reachParts(_ key: String, _ differing: UInt8) {
            changed = true
            // Read in place: a copy of the readers retained their arrays.
            donations.withValue(forKey: key) { readers in
                for part in DonationPart.all where differing & (1 << part.rawValue) != 0 { reached.formUnion(readers.parts[part.rawValue]) }
            }
        }
        // Pairwise up to the first position where the keys differ, as `compare` above.
        let before = a.entries, after = b.entries
        var common = 0
        while common < before.count, common < after.count, sameUTF8(before[common].key, after[common].key) {
            // The parts compared at once, not the summaries first and then their parts: that compared every
            // part twice, the recent instants included.
            let differing = DonationPart.differing(before[common].value, after[common].value)
            if differing != 0 { reachParts(before[common].key, differing) }
            common += 1
        }
        for entry in before[common...] {
            if let other = b[entry.key] {
                let differing = DonationPart.differing(entry.value, other)
                if differing != 0 { reachParts(entry.key, differing) }
            } else {
                reachAll(entry.key)
            }
        }
        for entry in after[common...] where !a.contains(entry.key) { reachAll(entry.key) }
    }
}

/// The flags reading each part of one event's donation summary (by `DonationPart.rawValue`), and all of them.
private struct DonationReaders: Sendable, Equatable {
    var parts: [FlagBits]
    var all: FlagBits

    init(_ none: FlagBits) {
        parts = Array(repeating: none, count: DonationPart.allCases.count)
        all = none
    }

    mutating func insert(_ position: Int, _ part: DonationPart) {
        parts[part.rawValue].insert(position)
        all.insert(position)
    }
}
