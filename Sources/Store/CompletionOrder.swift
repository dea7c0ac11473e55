/// Releases a shard's acknowledgements in the order the shard applied its writes.
///
/// Writes to one user are applied in seq order under their shard's lock, but each is acknowledged by whichever
/// thread's flush covered it, so two writes to one user from two connections could complete in either order. Their
/// completions compute flag changes and publish stream events; run out of order, a stream would see the older state
/// last (a flag left at a value it no longer has). A pure value: `register` in apply order, `complete` as
/// acknowledgements arrive; what it returns is ready to run, in seq order.
public struct CompletionOrder<Work> {
    /// Registered seqs not yet released, in apply order (`pending[start...]`).
    private var pending: [UInt64] = []
    private var start = 0
    private var finished: [UInt64: Work] = [:]

    public init() {}

    /// Seqs registered and not yet released.
    public var waiting: Int { pending.count - start }

    /// Registered seqs increase (one shard applies one write at a time), so a binary search finds one.
    private func isPending(_ seq: UInt64) -> Bool {
        var low = start, high = pending.count
        while low < high {
            let middle = (low + high) / 2
            if pending[middle] < seq { low = middle + 1 } else { high = middle }
        }
        return low < pending.count && pending[low] == seq
    }

    /// A write got `seq` (call in apply order: under the shard lock).
    public mutating func register(_ seq: UInt64) {
        pending.append(seq)
    }

    /// `seq` was acknowledged: returns every completion now releasable, oldest first (empty while an earlier
    /// registered write is still unacknowledged). An unregistered seq is released at once.
    public mutating func complete(_ seq: UInt64, _ work: Work) -> [Work] {
        var ready: [Work] = []
        complete(seq, work, into: &ready)
        return ready
    }

    /// The same, appending what is releasable to `ready` (a queue that keeps its buffer): the usual
    /// acknowledgement is the oldest registered write's, with nothing acknowledged ahead of it, and is released
    /// past the table, where each one went through the table and into an array of its own.
    public mutating func complete(_ seq: UInt64, _ work: Work, into ready: inout [Work]) {
        if start < pending.count, pending[start] == seq, finished.isEmpty {
            ready.append(work)
            start += 1
        } else {
            guard isPending(seq) else { return ready.append(work) }
            finished[seq] = work
            while start < pending.count, let next = finished.removeValue(forKey: pending[start]) {
                ready.append(next)
                start += 1
            }
        }
        if start > 64, start * 2 > pending.count {
            pending.removeFirst(start)
            start = 0
        }
    }
}
