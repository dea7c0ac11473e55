/// Per-user caps on a context (README, "Limits"): how many keys each map may hold, how large an attribute value
/// may be once serialized, how long a key may be. They bound the memory and the work one user — or one inline
/// context — can cost. The store applies them to new writes only: a log written under higher caps still replays in
/// full, and keys already over a lowered cap can change or go, only not grow in number.
public struct ContextLimits: Sendable, Equatable {
    public var maxCounters: Int
    public var maxEvents: Int
    public var maxFlags: Int
    public var maxAttributes: Int
    public var maxSegments: Int
    /// Distinct donated event names (each carries a summary and a history of up to 1 000 instants).
    public var maxDonationEvents: Int
    /// An attribute value's size as compact JSON.
    public var maxAttributeValueBytes: Int
    /// A counter, event, flag, attribute or segment name, in UTF-8 bytes.
    public var maxKeyBytes: Int

    public init(
        maxCounters: Int = 1000, maxEvents: Int = 1000, maxFlags: Int = 1000, maxAttributes: Int = 1000, maxSegments: Int = 1000,
        maxDonationEvents: Int = 256, maxAttributeValueBytes: Int = 16 * 1024, maxKeyBytes: Int = 256
    ) {
        self.maxCounters = maxCounters
        self.maxEvents = maxEvents
        self.maxFlags = maxFlags
        self.maxAttributes = maxAttributes
        self.maxSegments = maxSegments
        self.maxDonationEvents = maxDonationEvents
        self.maxAttributeValueBytes = maxAttributeValueBytes
        self.maxKeyBytes = maxKeyBytes
    }

    /// No caps: what replaying acknowledged records uses.
    public static let unlimited = ContextLimits(
        maxCounters: .max, maxEvents: .max, maxFlags: .max, maxAttributes: .max, maxSegments: .max,
        maxDonationEvents: .max, maxAttributeValueBytes: .max, maxKeyBytes: .max)

    /// One of the caps, named as the configuration names it.
    public enum Limit: String, Sendable, CaseIterable {
        case counters, events, flags, attributes, segments, donationEvents, attributeValueBytes, keyBytes

        /// The key under `limits` in the config file.
        public var configName: String {
            switch self {
            case .counters: return "maxCountersPerUser"
            case .events: return "maxEventsPerUser"
            case .flags: return "maxFlagsPerUser"
            case .attributes: return "maxAttributesPerUser"
            case .segments: return "maxSegmentsPerUser"
            case .donationEvents: return "maxDonationEventsPerUser"
            case .attributeValueBytes: return "maxAttributeValueBytes"
            case .keyBytes: return "maxKeyBytes"
            }
        }

        /// `limits.maxCountersPerUser`, as messages name it.
        public var configKey: String { "limits." + configName }

        /// What the limit counts, for messages: "1000 counters".
        public var noun: String {
            switch self {
            case .counters: return "counters"
            case .events: return "events"
            case .flags: return "flags"
            case .attributes: return "attributes"
            case .segments: return "segments"
            case .donationEvents: return "donated event names"
            case .attributeValueBytes, .keyBytes: return "bytes"
            }
        }
    }

    public subscript(limit: Limit) -> Int {
        get {
            switch limit {
            case .counters: return maxCounters
            case .events: return maxEvents
            case .flags: return maxFlags
            case .attributes: return maxAttributes
            case .segments: return maxSegments
            case .donationEvents: return maxDonationEvents
            case .attributeValueBytes: return maxAttributeValueBytes
            case .keyBytes: return maxKeyBytes
            }
        }
        set {
            switch limit {
            case .counters: maxCounters = newValue
            case .events: maxEvents = newValue
            case .flags: maxFlags = newValue
            case .attributes: maxAttributes = newValue
            case .segments: maxSegments = newValue
            case .donationEvents: maxDonationEvents = newValue
            case .attributeValueBytes: maxAttributeValueBytes = newValue
            case .keyBytes: maxKeyBytes = newValue
            }
        }
    }

    /// The refusal text for `limit` at `value`, e.g. "at most 1000 counters per user (limits.maxCountersPerUser)".
    public static func describe(_ limit: Limit, _ value: Int) -> String {
        switch limit {
        case .attributeValueBytes: return "an attribute value is at most \(value) bytes as JSON (\(limit.configKey))"
        case .keyBytes: return "a key is at most \(value) bytes of UTF-8 (\(limit.configKey))"
        default: return "at most \(value) \(limit.noun) per user (\(limit.configKey))"
        }
    }
}
