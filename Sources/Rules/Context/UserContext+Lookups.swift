extension UserContext {
    // One value of one map, looked up where the map lies in the box. Read through the map's own accessor and
    // handed to its subscript, the map was copied first, its storage retained and released around every lookup
    // (the compiler cannot tell that the call leaves the box's memory alone): some ten pairs of atomic counts in
    // each flag evaluated on a write. Passed as the address of the map instead, which the lookup only reads, it is
    // not copied. The accesses are formally mutating and write nothing, so threads reading one box at once (the
    // store's value is shared) still only read it.

    @inlinable
    public func counter(forKey key: String) -> Int? { fields.pointee.counters.valueInPlace(forKey: key) }

    @inlinable
    public func event(forKey key: String) -> Instant? { fields.pointee.events.valueInPlace(forKey: key) }

    @inlinable
    public func flag(forKey key: String) -> Bool? { fields.pointee.flags.valueInPlace(forKey: key) }

    @inlinable
    public func attribute(forKey key: String) -> JSONValue? { fields.pointee.attributes.valueInPlace(forKey: key) }

    @inlinable
    public func display(forKey key: String) -> DisplayState? { fields.pointee.display.valueInPlace(forKey: key) }

    @inlinable
    public func triggerFire(forKey key: String) -> Instant? { fields.pointee.triggerFires.valueInPlace(forKey: key) }

    /// Whether the user is in segment `name`.
    @inlinable
    public func isMember(of name: String) -> Bool { fields.pointee.segments.map.valueInPlace(forKey: name) != nil }

    /// What `body` makes of event `event`'s donation summary, lent in place; `nil` when there is none.
    @inlinable
    public func withDonations<Result>(of event: String, _ body: (borrowing DonationSummary) -> Result) -> Result? {
        fields.pointee.donations.withValueInPlace(forKey: event, body)
    }
}
