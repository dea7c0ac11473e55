#if canImport(Glibc)
import Glibc
#endif

/// Writing one batch: everything queued, up to a requested cut into the current segment and the rest into a new
/// one, fsynced under `always`, then acknowledged. One flusher at a time (the driver's file lock) takes a batch with
/// `beginFlush` and feeds the result of each request it performs to `advance` until the batch is settled.
extension GroupCommit {
    /// An I/O call for the driver to make, outside its lock.
    enum Request: Equatable {
        /// One `write` call; report how many bytes it took (a short write is asked again for the rest).
        case write(fd: Int32, path: String, bytes: ArraySlice<UInt8>)
        case fsync(fd: Int32, path: String)
        /// Open for append (creating it); report the descriptor.
        case open(path: String)
        /// Fsync the directory, so a new segment's name survives a power cut.
        case syncDirectory(path: String)
        /// Zero-fill `count` bytes from `from`, the file's end, ahead of the records; report whether it was done.
        case reserve(fd: Int32, path: String, from: Int, count: Int)
    }

    /// What a performed request returned.
    enum Response: Equatable {
        case wrote(Int)
        case done
        case opened(Int32)
        /// Whether the space was reserved. Never `failed`: a reservation that cannot be made leaves writes appending.
        case reserved(Bool)
        case failed(IOError)
    }

    /// The next thing a flusher does.
    enum FlushStep {
        /// Perform the request, then `advance` with its response. `wake` as in `Settled`.
        case perform(Request, wake: Bool)
        case settled(Settled)
    }

    /// One step of a batch's plan.
    enum Step: Equatable {
        case write(Range<Int>)
        case fsync
        /// End the current segment here; later records go to the segment starting at `firstSeq`.
        case rotate(firstSeq: UInt64, oldHasNewRecords: Bool, ticket: Int?)
        /// Rotate if the segment reached its size limit.
        case rotateIfFull(firstSeq: UInt64, oldHasNewRecords: Bool)
        case retire(oldHasNewRecords: Bool)
        case open(firstSeq: UInt64)
        case syncDirectory
        case rotated(ticket: Int)
        /// Reserve zeros ahead before the write that follows (see `reservesSpace`).
        case reserve(from: Int, count: Int)
    }

    /// The batch being written and what is left of its plan.
    struct Flight {
        let bytes: [UInt8]
        let lastSeq: UInt64
        var steps: [Step]
        var next = 0
        /// The step whose request is out.
        var pending: Step?
        var wake = false
    }

    /// Takes everything queued (and the cut) as one batch and returns its first request, or `.settled` with
    /// nothing to do when the queue is empty or the log failed.
    mutating func beginFlush() -> FlushStep {
        guard hasWork else { return .settled(.nothing) }
        // The records leave `queued` by a swap with the last batch's buffer, emptied here: by now nothing else
        // holds it (its writes returned long ago), so its room is kept without an allocation.
        var batch = spareBytes
        spareBytes = []
        batch.removeAll(keepingCapacity: true)
        swap(&batch, &queued)
        queuedRecords = 0
        var steps = spareSteps
        spareSteps = []
        steps.removeAll(keepingCapacity: true)
        var start = 0
        if let cut {
            if cut.offset > 0 { steps.append(.write(0..<cut.offset)) }
            steps.append(.rotate(firstSeq: cut.firstSeqAfter, oldHasNewRecords: cut.offset > 0, ticket: cut.ticket))
            start = cut.offset
            self.cut = nil
        }
        if start < batch.count { steps.append(.write(start..<batch.count)) }
        if policy == .always { steps.append(.fsync) }
        steps.append(.rotateIfFull(firstSeq: queuedLastSeq + 1, oldHasNewRecords: policy != .always))
        flight = Flight(bytes: batch, lastSeq: queuedLastSeq, steps: steps)
        return proceed()
    }

    /// Takes the response to the request last returned and returns the next step.
    mutating func advance(_ response: Response) -> FlushStep {
        // The flight is taken out, not copied, while it changes: a copy retained its bytes and steps, and a step
        // inserted into the copy (a rotation) copied the steps again, the original still holding them.
        guard var current = flight.take() else { return dropped(response) }
        guard let step = current.pending else {
            flight = current
            return dropped(response)
        }
        current.pending = nil
        switch (step, response) {
        case (_, .failed(let error)):
            return .settled(fail(StorageFailure(error)))
        case (.write(let range), .wrote(let count)):
            // `writeAll`'s rule: a write that takes nothing will not take more if asked again.
            guard count > 0 else { return .settled(fail(StorageFailure(IOError(call: "write", path: segment.path, code: EIO)))) }
            let taken = min(count, range.count)
            segment.bytes += taken
            if taken < range.count {
                current.pending = .write(range.lowerBound + taken..<range.upperBound)
                flight = current
                return .perform(
                    .write(fd: segment.fd, path: segment.path, bytes: current.bytes[range.lowerBound + taken..<range.upperBound]),
                    wake: false)
            }
        case (.open, .opened(let fd)):
            segment.fd = fd
            segment.bytes = 0
            segment.reserved = 0
        case (.reserve(let from, let count), .reserved(let done)):
            // Declined or failed partway, zeros may still reach that far: the cut at retirement takes them too.
            segment.reserved = from + count
            if !done { reservesSpace = false }
        case (.fsync, .done), (.syncDirectory, .done):
            break
        default:
            preconditionFailure("response \(response) does not answer \(step)")
        }
        flight = current
        return proceed()
    }

    /// The log failed while this request was out (the writer's fsync, say): the batch is dropped and never
    /// acknowledged, but a segment it opened is still the one to close at the stop.
    private mutating func dropped(_ response: Response) -> FlushStep {
        if case .opened(let fd) = response { segment.fd = fd }
        return .settled(.nothing)
    }

    /// Runs the plan's bookkeeping steps until one needs I/O, or the plan is done and the batch acknowledged.
    private mutating func proceed() -> FlushStep {
        guard var current = flight.take() else { return .settled(.nothing) }
        while current.next < current.steps.count {
            let step = current.steps[current.next]
            current.next += 1
            switch step {
            case .write(let range):
                let end = max(segment.reserved, segment.bytes)
                if reservesSpace, segment.bytes + range.count > end {
                    // The write comes again once the zeros are there.
                    current.next -= 1
                    let count = max(Self.reserveChunk, segment.bytes + range.count - end)
                    return request(
                        .reserve(from: end, count: count), .reserve(fd: segment.fd, path: segment.path, from: end, count: count), in: current)
                }
                return request(step, .write(fd: segment.fd, path: segment.path, bytes: current.bytes[range]), in: current)
            case .fsync:
                return request(step, .fsync(fd: segment.fd, path: segment.path), in: current)
            case .rotate(let firstSeq, let oldHasNewRecords, let ticket):
                current.steps.insert(
                    contentsOf: rotation(firstSeq: firstSeq, oldHasNewRecords: oldHasNewRecords, ticket: ticket),
                    at: current.next)
            case .rotateIfFull(let firstSeq, let oldHasNewRecords):
                if segment.bytes >= segmentLimit {
                    current.steps.insert(
                        contentsOf: rotation(firstSeq: firstSeq, oldHasNewRecords: oldHasNewRecords, ticket: nil),
                        at: current.next)
                }
            case .retire(let oldHasNewRecords):
                // Under `always` the old segment was fsynced just before; otherwise the writer thread fsyncs it
                // if it holds anything not yet synced, before closing it.
                retiring.append(
                    Retired(
                        fd: segment.fd, path: segment.path,
                        dirty: policy != .always && (oldHasNewRecords || unsyncedSeq > 0),
                        truncateTo: segment.reserved > segment.bytes ? segment.bytes : nil))
                segment.fd = -1
                unsyncedSeq = 0
                current.wake = true
            case .open(let firstSeq):
                // Nothing of the new segment is written yet (`AppendLog.writtenEnd`).
                segment.path = segmentPath(firstSeq: firstSeq)
                segment.bytes = 0
                segment.reserved = 0
                return request(step, .open(path: segment.path), in: current)
            case .syncDirectory:
                return request(step, .syncDirectory(path: directory), in: current)
            case .rotated(let ticket):
                rotationsDone = max(rotationsDone, ticket)
                current.wake = true
            case .reserve:
                // Asked for on the way to a write (above), never part of a plan.
                break
            }
        }
        var settled = acknowledge(through: current.lastSeq)
        settled.wake = settled.wake || current.wake
        // Kept for the next batch, unless large: a megabyte batch (an import) is not held on to while idle.
        if current.bytes.capacity < Self.keptBatchCapacity {
            spareBytes = current.bytes
            spareSteps = current.steps
        }
        return .settled(settled)
    }

    private mutating func request(_ step: Step, _ request: Request, in current: consuming Flight) -> FlushStep {
        current.pending = step
        let wake = current.wake
        current.wake = false
        flight = current
        return .perform(request, wake: wake)
    }

    /// Later records go to a new segment; the writer thread closes the old one. Under `always` the old one is
    /// fsynced first, before anything in it is acknowledged.
    private func rotation(firstSeq: UInt64, oldHasNewRecords: Bool, ticket: Int?) -> [Step] {
        var steps: [Step] = policy == .always && oldHasNewRecords ? [.fsync] : []
        steps += [.retire(oldHasNewRecords: oldHasNewRecords), .open(firstSeq: firstSeq), .syncDirectory]
        if let ticket { steps.append(.rotated(ticket: ticket)) }
        return steps
    }
}
