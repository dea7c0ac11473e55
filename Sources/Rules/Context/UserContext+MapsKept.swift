extension UserContext {
    /// Which of a context's collections share their storage with another context's: the ones a write between the
    /// two left alone. Read in place through both boxes, copying (retaining) none of them. `false` says nothing:
    /// equal collections may be copies.
    struct MapsKept {
        var counters = false
        var events = false
        var flags = false
        var attributes = false
        var segments = false
        var donations = false
        var display = false

        /// Nothing known to be kept.
        init() {}

        init(_ old: borrowing UserContext, _ new: borrowing UserContext) {
            let before = old.fields, after = new.fields
            counters = before.pointee.counters.sharesStorage(with: after.pointee.counters)
            events = before.pointee.events.sharesStorage(with: after.pointee.events)
            flags = before.pointee.flags.sharesStorage(with: after.pointee.flags)
            attributes = before.pointee.attributes.sharesStorage(with: after.pointee.attributes)
            segments = before.pointee.segments.sharesStorage(with: after.pointee.segments)
            donations = before.pointee.donations.sharesStorage(with: after.pointee.donations)
            display = before.pointee.display.sharesStorage(with: after.pointee.display)
        }
    }
}
