import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One thread's reference to the rule set it last read (`RulesHost.withServed`): a flag read takes the served set
/// on every request, and through the host's lock that was its lock (two atomic operations) and three retains and
/// releases of shared objects (three more each way), on every loop alike. Here a read compares the set's number with
/// the host's (one plain load) and lends the set it already holds.
///
/// Owned by its thread: made on the thread's first read, reached through a POSIX thread-specific key, released
/// when the thread ends. It holds one set at a time, of whichever host the thread read last, so a thread keeps an
/// old set alive until its next read or its end: only the threads that read on every request (the event loops,
/// for flag reads and the writes they start, and the clock's thread, for the writes it starts) read this way; the
/// others take the set through the host's lock.
final class ServedReader {
    /// The set this thread holds, retained by hand: lent unretained (`_withUnsafeGuaranteedRef`), it costs a read
    /// no reference counting at all.
    ///
    /// Both variables are this thread's alone, so the runtime's exclusivity checks (an access set in thread-local
    /// storage, some 170 instructions a read) are left out: they could only ever catch an overlap on this thread,
    /// and `lend` makes none.
    @exclusivity(unchecked) private var held: Unmanaged<RulesHost.Served>?
    /// The host `held` came from (`RulesHost.identity`), for a nested read: only a read of that same host may lend
    /// the outer read's set.
    @exclusivity(unchecked) private var heldHost: UInt64 = 0
    /// How many reads are lending `held` right now, on this thread: a read nested in another (a handler asking
    /// twice) must not replace the set the outer one is using, so it lends the same one.
    @exclusivity(unchecked) private var lending = 0

    deinit { held?.release() }

    /// Lends `body` the set numbered `current` of the host `host` when this thread holds it, or `fresh()`'s set,
    /// then held instead. A read nested in another of the same host lends the outer one's set, whatever was served
    /// since (one request, one rule set); nested in a read of another host, it lends `fresh()`'s set, held for that
    /// read alone.
    func lend<Value, Failure: Error>(
        host: UInt64, current: UInt64, fresh: () -> RulesHost.Served, _ body: (RulesHost.Served) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        if lending > 0, heldHost != host {
            let own = fresh()
            return try withExtendedLifetime(own) { () throws(Failure) -> Value in try body(own) }
        }
        if lending == 0, held.map({ $0._withUnsafeGuaranteedRef { $0.number } }) != current {
            // The new set stored before the old one is let go: whatever its release sets off finds this reader
            // whole.
            let old = held
            held = Unmanaged.passRetained(fresh())
            heldHost = host
            old?.release()
        }
        // Never nil here: a read that is not nested has just made sure of it, and a nested one finds the set its
        // outer read holds.
        let set = held.unsafelyUnwrapped
        lending += 1
        defer { lending -= 1 }
        var outcome: Result<Value, Failure>?
        set._withUnsafeGuaranteedRef { served in
            outcome = Result(catching: { () throws(Failure) -> Value in try body(served) })
        }
        return try outcome.unsafelyUnwrapped.get()
    }

    /// The calling thread's reader, lent unretained: the thread-specific slot holds it until the thread ends.
    static func withCurrent<Value>(_ body: (ServedReader) -> Value) -> Value {
        let key = Self.key
        if let stored = pthread_getspecific(key) {
            return Unmanaged<ServedReader>.fromOpaque(stored)._withUnsafeGuaranteedRef(body)
        }
        let made = ServedReader()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return body(made)
    }

    /// One key for every thread; its destructor releases a thread's reader when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { stored in
            guard let stored else { return }
            Unmanaged<ServedReader>.fromOpaque(stored).release()
        }
        precondition(created == 0, "pthread_key_create failed: \(created)")
        return key
    }()
}
