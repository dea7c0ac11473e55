/// What specd knows of one user (docs/api.md, "Contexts"): the input of every evaluation.
public struct UserContext: Sendable, Equatable {
    public var launchedAt: Instant?
    /// IANA zone name; `nil` means UTC.
    public var timeZone: String?
    public var counters: CompactMap<Int> = [:]
    public var events: CompactMap<Instant> = [:]
    public var flags: CompactMap<Bool> = [:]
    public var attributes: CompactMap<JSONValue> = [:]
    public var segments: SegmentSet = []
    public var donations: CompactMap<DonationSummary> = [:]
    /// When each trigger last fired for this user (throttles survive rule replacement).
    public var triggerFires: CompactMap<Instant> = [:]
    /// When the expiring attributes, flags and segments stop counting.
    public var expiries = ValueExpiries()
    /// Display accounting per display flag (docs/rules.md, "Display accounting").
    public var display: CompactMap<DisplayState> = [:]

    public init() {}
}
