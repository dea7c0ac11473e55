import Foundation
import Rules
import TestRandom
import Testing

@testable import Store

/// Expiring values in the store (docs/api.md, "Expiring values"): the reducer, the log and snapshot codecs,
/// replay, restart and the snapshot that drops what expired.
@Suite struct ExpiryReducerTests {
    let until = t0 + 60_000

    func apply(
        _ actions: Action..., to state: UserContext? = nil, at now: Instant = t0, limits: ContextLimits = .unlimited
    ) throws
        -> UserContext?
    {
        try Reducer.apply(Mutation(user: "u", now: now, actions: actions), to: state, limits: limits).state
    }

    @Test func expiringActions_setTheValueAndItsExpiry() throws {
        let state = try apply(
            .setExpiringAttribute(key: "plan", value: "pro", expiresAt: until), .setExpiringFlag(flag: "beta", value: true, expiresAt: until),
            .addExpiringSegment("vip", expiresAt: until))
        #expect(state?.attributes["plan"] == "pro")
        #expect(state?.flags["beta"] == true)
        #expect(state?.segments.contains("vip") == true)
        #expect(state?.expiries[.attribute, "plan"] == until)
        #expect(state?.expiries[.flag, "beta"] == until)
        #expect(state?.expiries[.segment, "vip"] == until)
    }

    struct Clearing: CustomTestStringConvertible, Sendable {
        let name: String
        let action: Action
        let kind: ValueExpiries.Kind
        var testDescription: String { name }
    }

    static let clearings: [Clearing] = [
        .init(name: "setAttribute without ttl", action: .setAttribute(key: "k", value: 2), kind: .attribute),
        .init(name: "removeAttribute", action: .removeAttribute(key: "k"), kind: .attribute),
        .init(name: "clear attributes", action: .clear(.attributes), kind: .attribute),
        .init(name: "clear all (attribute)", action: .clear(.all), kind: .attribute),
        .init(name: "setFlag without ttl", action: .setFlag(flag: "k", value: false), kind: .flag),
        .init(name: "toggleFlag", action: .toggleFlag(flag: "k"), kind: .flag),
        .init(name: "clear flags", action: .clear(.flags), kind: .flag),
        .init(name: "addSegment without ttl", action: .addSegment("k"), kind: .segment),
        .init(name: "removeSegment", action: .removeSegment("k"), kind: .segment),
        .init(name: "clear segments", action: .clear(.segments), kind: .segment)
    ]

    @Test(arguments: clearings)
    func writingOrRemovingAValue_clearsItsExpiry(_ test: Clearing) throws {
        let expiring: Action
        switch test.kind {
        case .attribute: expiring = .setExpiringAttribute(key: "k", value: 1, expiresAt: until)
        case .flag: expiring = .setExpiringFlag(flag: "k", value: true, expiresAt: until)
        case .segment: expiring = .addExpiringSegment("k", expiresAt: until)
        }
        let state = try apply(expiring, test.action)
        #expect(state?.expiries.isEmpty == true)
    }

    @Test func clearingAnotherScope_keepsTheExpiry() throws {
        let state = try apply(.setExpiringFlag(flag: "k", value: true, expiresAt: until), .clear(.attributes), .clear(.counters))
        #expect(state?.expiries[.flag, "k"] == until)
    }

    @Test(arguments: [-1 as Int64, 0]) func anExpiryNotAfterTheWrite_storesNothing(offset: Int64) throws {
        let state = try apply(
            .setAttribute(key: "plan", value: "old"), .setExpiringAttribute(key: "plan", value: "pro", expiresAt: t0 + offset),
            .addExpiringSegment("vip", expiresAt: t0 + offset))
        #expect(state?.attributes["plan"] == nil)
        #expect(state?.segments.isEmpty == true)
        #expect(state?.expiries.isEmpty == true)
    }

    @Test func aLaterWrite_findsTheExpiredValueGone() throws {
        let written = try apply(.setExpiringFlag(flag: "f", value: true, expiresAt: until))
        // At the expiry instant the flag is missing, so toggling reads false and writes true, with no expiry.
        let toggled = try apply(.toggleFlag(flag: "f"), to: written, at: until)
        #expect(toggled?.flags["f"] == true)
        #expect(toggled?.expiries.isEmpty == true)
        // One millisecond before it, the flag is still true.
        let early = try apply(.toggleFlag(flag: "f"), to: written, at: until - 1)
        #expect(early?.flags["f"] == false)
    }

    @Test func expiredValues_doNotCountAgainstTheCaps() throws {
        let limits = ContextLimits(maxSegments: 1)
        let full = try apply(.addExpiringSegment("trial", expiresAt: until), limits: limits)
        #expect(throws: ReducerError.self) { try apply(.addSegment("vip"), to: full, at: until - 1, limits: limits) }
        #expect(try apply(.addSegment("vip"), to: full, at: until, limits: limits)?.segments == ["vip"])
    }

    @Test func expiringActions_areHeldToTheCaps() throws {
        let limits = ContextLimits(maxAttributes: 1, maxAttributeValueBytes: 8, maxKeyBytes: 4)
        #expect(throws: ReducerError.self) { try apply(.setExpiringAttribute(key: "toolong", value: 1, expiresAt: until), limits: limits) }
        #expect(throws: ReducerError.self) {
            try apply(.setExpiringAttribute(key: "k", value: "a long value", expiresAt: until), limits: limits)
        }
        let one = try apply(.setAttribute(key: "a", value: 1), limits: limits)
        #expect(throws: ReducerError.self) { try apply(.setExpiringAttribute(key: "b", value: 1, expiresAt: until), to: one, limits: limits) }
    }

    @Test func aRefusedWrite_leavesTheStateAsItWas_expiredValuesIncluded() throws {
        let written = try apply(.setExpiringAttribute(key: "a", value: 1, expiresAt: until))
        let limits = ContextLimits(maxKeyBytes: 2)
        var state = written
        #expect(throws: ReducerError.self) {
            try Reducer.applyInPlace(mutation("u", .setFlag(flag: "long", value: true), at: until), to: &state, limits: limits)
        }
        #expect(state == written)
    }
}

@Suite struct ExpiryCodecTests {
    static let expiring = Mutation(
        user: "u", now: t0,
        actions: [
            .setExpiringAttribute(key: "plan", value: ["tier": "pro"], expiresAt: t0 + 1),
            .setExpiringFlag(flag: "beta", value: true, expiresAt: t0 + 2),
            .setExpiringFlag(flag: "off", value: false, expiresAt: .init(milliseconds: .max)), .addExpiringSegment("vip", expiresAt: t0 - 5)
        ])

    @Test func expiringActions_roundTripThroughTheLog_withTags20to22() throws {
        let bytes = MutationCodec.encode(Self.expiring)
        #expect(try MutationCodec.decode(bytes) == Self.expiring)
        let tags = Self.expiring.actions.map { action -> UInt8 in
            MutationCodec.encode(Mutation(user: "", now: Instant(milliseconds: 0), actions: [action]))[3]
        }
        #expect(tags == [20, 21, 21, 22])
    }

    static func context() -> UserContext {
        var context = UserContext()
        context.attributes["plan"] = "pro"
        context.flags["beta"] = true
        context.segments.insert("vip")
        context.expiries[.attribute, "plan"] = t0
        context.expiries[.segment, "vip"] = t0 + 1
        return context
    }

    @Test func snapshotRecord_keepsExpiries_inTrailingSectionOne() throws {
        var writer = BinaryWriter()
        ContextCodec.encode(user: "u", Self.context(), into: &writer)
        var reader = BinaryReader(writer.bytes)
        let (user, decoded) = try ContextCodec.decode(&reader)
        #expect(user == "u" && decoded == Self.context() && reader.isAtEnd)
        // No expiry, no section: the record is byte for byte what a pre-v2 one was.
        var plain = Self.context()
        plain.expiries = ValueExpiries()
        var plainWriter = BinaryWriter()
        ContextCodec.encode(user: "u", plain, into: &plainWriter)
        #expect(Array(writer.bytes.prefix(plainWriter.bytes.count)) == plainWriter.bytes)
        #expect(writer.bytes[plainWriter.bytes.count] == 1)
    }

    @Test func aPreV2Record_stillDecodes() throws {
        // Written by hand as records were before trailing sections: id, launched, zone, counters, events, flags,
        // attributes, segments, donations, trigger fires, and nothing after.
        var writer = BinaryWriter()
        writer.string("old")
        writer.byte(1)
        writer.instant(t0)
        writer.optionalString("Europe/Paris")
        writer.unsigned(1)
        writer.string("c")
        writer.int(3)
        writer.unsigned(0)
        writer.unsigned(1)
        writer.string("f")
        writer.byte(1)
        writer.unsigned(0)
        writer.unsigned(1)
        writer.string("vip")
        writer.unsigned(0)
        writer.unsigned(1)
        writer.string("t")
        writer.instant(t0)
        var reader = BinaryReader(writer.bytes)
        let (user, context) = try ContextCodec.decode(&reader)
        #expect(user == "old" && context.counters["c"] == 3 && context.flags["f"] == true && context.segments == ["vip"])
        #expect(context.triggerFires["t"] == t0 && context.expiries.isEmpty)
    }

    @Test(arguments: [
        ("an unknown tag", [9, 0] as [UInt8]),
        ("tags out of order", [1, 0, 1, 0]),
        ("an unknown kind", [1, 1, 7, 1, 0x61, 0]),
        ("an expiry of a value the user lacks", [1, 1, 0, 1, 0x7A, 0]),
        ("the same expiry twice", [1, 2, 1, 4, 0x62, 0x65, 0x74, 0x61, 0, 1, 4, 0x62, 0x65, 0x74, 0x61, 0]),
        ("a cut section", [1, 3])
    ])
    func malformedTrailingSections_areRefused(_ name: String, _ section: [UInt8]) {
        var writer = BinaryWriter()
        var plain = Self.context()
        plain.expiries = ValueExpiries()
        ContextCodec.encode(user: "u", plain, into: &writer)
        var reader = BinaryReader(writer.bytes + section)
        #expect(throws: BinaryReader.Failure.self, "\(name)") { try ContextCodec.decode(&reader) }
    }
}

@Suite(.serialized) struct ExpiryDurabilityTests {
    func open(_ directory: String, clock: @escaping @Sendable () -> Instant = { t0 }) throws -> Database {
        try openDatabase(directory, clock: clock)
    }

    @Test func restart_replaysTheLog_keepingExpiries() throws {
        let directory = temporaryDirectory()
        let database = try open(directory)
        _ = try database.store.apply(
            mutation("u", .setExpiringAttribute(key: "plan", value: "pro", expiresAt: t0 + 60_000), .addExpiringSegment("vip", expiresAt: t0 + 5)))
        _ = try database.store.apply(mutation("u", .addSegment("vip"), at: t0 + 1))
        let live = database.store.allUsers
        database.log.close()
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.store.allUsers == live)
        #expect(recovered.store.context(of: "u")?.expiries[.attribute, "plan"] == t0 + 60_000)
        #expect(recovered.store.context(of: "u")?.expiries[.segment, "vip"] == nil)
    }

    @Test func snapshot_dropsExpiredValues_andKeepsPendingOnes() throws {
        let directory = temporaryDirectory()
        let database = try open(directory, clock: { t0 + 10_000 })
        _ = try database.store.apply(
            mutation(
                "u", .setExpiringAttribute(key: "plan", value: "pro", expiresAt: t0 + 60_000),
                .setExpiringFlag(flag: "gone", value: true, expiresAt: t0 + 10_000), .addExpiringSegment("vip", expiresAt: t0 + 9_999)))
        #expect(database.store.context(of: "u")?.flags["gone"] == true)
        try database.close()
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.recovery.snapshotSeq == 1 && recovered.recovery.replayedRecords == 0)
        let context = try #require(recovered.store.context(of: "u"))
        // Exactly at its instant a value has expired: the snapshot leaves it out.
        #expect(context.flags["gone"] == nil && !context.segments.contains("vip"))
        #expect(context.attributes["plan"] == "pro" && context.expiries[.attribute, "plan"] == t0 + 60_000)
        #expect(context.expiries.count == 1)
    }
}
