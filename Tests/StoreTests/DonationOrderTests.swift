import Foundation
import Rules
import Store
import Testing

/// RuleKit's `donations.first` / `donations.last` are the earliest / latest donation by date. Donations may arrive
/// out of order (a client sends a backdated `at`), so the summary orders by date, breaking ties by arrival.
@Suite(.serialized) struct DonationOrderTests {
    struct Arrivals: CustomTestStringConvertible, Sendable {
        let name: String
        /// (offset from t0 in ms, version) in arrival order.
        let donations: [(Int64, String)]
        let first: String
        let last: String
        var testDescription: String { name }

        var actions: [Action] { donations.map { .donate(event: "e", at: t0 + $0.0, appVersion: $0.1) } }
    }

    static let orders: [Arrivals] = [
        .init(name: "in date order", donations: [(-20, "a"), (-10, "b"), (0, "c")], first: "a", last: "c"),
        .init(name: "a backdated donation before first becomes first", donations: [(-10, "a"), (0, "b"), (-20, "c")], first: "c", last: "b"),
        .init(
            name: "a backdated donation between first and last changes neither", donations: [(-20, "a"), (0, "b"), (-10, "c")], first: "a", last: "b"),
        .init(name: "the second arrival dated earlier: last stays the later date", donations: [(0, "a"), (-10, "b")], first: "b", last: "a"),
        .init(name: "ties keep arrival order: first stays, last moves", donations: [(0, "a"), (0, "b"), (0, "c")], first: "a", last: "c"),
        .init(name: "a tie with first does not replace it", donations: [(-10, "a"), (0, "b"), (-10, "c")], first: "a", last: "b"),
        .init(name: "a tie with last becomes last", donations: [(-10, "a"), (0, "b"), (0, "c")], first: "a", last: "c")
    ]

    @Test(arguments: orders)
    func donate_firstAndLast_areEarliestAndLatestByDate(_ order: Arrivals) throws {
        // One action per write, as clients send them, and all in one batch: both give the same summary.
        var state: UserContext?
        for action in order.actions { state = try Reducer.apply(Mutation(user: "u", now: t0, actions: [action]), to: state).state }
        let batched = try Reducer.apply(Mutation(user: "u", now: t0, actions: order.actions), to: nil).state
        for summary in [state?.donations["e"], batched?.donations["e"]] {
            #expect(summary?.first?.appVersion == order.first)
            #expect(summary?.last?.appVersion == order.last)
            #expect(summary?.count == order.donations.count)
            #expect(summary.map { Array($0.recent) } == order.donations.map { t0 + $0.0 }.sorted())
        }
    }

    /// Snapshots store the summary and replay runs the reducer again: both give back the same first and last.
    @Test func backdatedFirst_survivesSnapshotAndLogReplay() throws {
        let directory = temporaryDirectory()
        let order = Self.orders[1]
        var database: Database? = try Database(options: .init(directory: directory, fsync: .never, snapshotEvery: 1_000_000))
        for action in order.actions { _ = try database!.writeAndWait(mutation("logged", action)) }
        for action in order.actions { _ = try database!.writeAndWait(mutation("snapshotted", action)) }
        try database!.takeSnapshot()
        // Written after the snapshot: recovered by replaying the log.
        for action in order.actions { _ = try database!.writeAndWait(mutation("replayed", action)) }
        database!.closeWithoutSnapshot()
        database = nil
        let reopened = try Database(options: .init(directory: directory, fsync: .never, snapshotEvery: 1_000_000))
        defer { reopened.closeWithoutSnapshot() }
        for user in ["logged", "snapshotted", "replayed"] {
            let summary = reopened.store.context(of: user)?.donations["e"]
            #expect(summary?.first?.appVersion == "c", "\(user)")
            #expect(summary?.first?.at == t0 - 20, "\(user)")
            #expect(summary?.last?.appVersion == "b", "\(user)")
        }
    }
}
