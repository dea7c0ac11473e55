/// Maintenance the store runs on its own, reported as it starts and ends so an operations view can list it
/// (docs/api.md, "Operations"): snapshots and the compaction that follows a verified one.
public struct StoreActivity: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case snapshot, compaction
    }

    public enum Phase: Sendable, Equatable {
        case started
        case finished
        case failed(String)
    }

    public let kind: Kind
    public let phase: Phase
    /// The seq the snapshot covers (for compaction: the snapshot it keeps).
    public let seq: UInt64

    public init(kind: Kind, phase: Phase, seq: UInt64) {
        self.kind = kind
        self.phase = phase
        self.seq = seq
    }
}
