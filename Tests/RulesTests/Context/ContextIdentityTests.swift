import Testing

@testable import Rules

/// `UserContext.Identity` names one box: the context it was made from and the copies that share its box, never a
/// changed copy or an equal context in another box. It remembers the box's number, so it keeps nothing alive.
@Suite struct ContextIdentityTests {
    static func context(_ counter: Int) -> UserContext {
        var context = UserContext()
        context.counters["opens"] = counter
        return context
    }

    @Test func identity_namesItsContextAndUnchangedCopies_only() {
        let original = Self.context(1)
        let identity = UserContext.Identity(original)
        let copy = original
        #expect(identity.names(original))
        #expect(identity.names(copy))
        var changed = original
        changed.counters["opens"] = 2
        #expect(!identity.names(changed))
        #expect(identity.names(original))
        // Equal, but another box: not the value the identity saw.
        let rebuilt = Self.context(1)
        #expect(rebuilt == original)
        #expect(!identity.names(rebuilt))
    }

    @Test func emptyContexts_shareOneBox_andSoOneIdentity() {
        #expect(UserContext.Identity(UserContext()).names(UserContext()))
        #expect(!UserContext.Identity(UserContext()).names(Self.context(0)))
    }

    /// Every box made gets a number no other box had: identities of many contexts, some made and dropped in
    /// between, name only their own.
    @Test func numbers_areNeverGivenTwice() {
        var kept: [(UserContext, UserContext.Identity)] = []
        for counter in 0..<500 {
            _ = Self.context(-counter)
            let context = Self.context(counter)
            kept.append((context, UserContext.Identity(context)))
        }
        for (index, (_, identity)) in kept.enumerated() {
            #expect(identity.names(kept[index].0))
            #expect(!identity.names(kept[(index + 1) % kept.count].0))
        }
        #expect(Set(kept.map { $0.0.boxNumber }).count == kept.count)
    }

    /// `fields` reads the header's address as the fields' own.
    @Test func fields_areTheHeadersFirstMember() {
        #expect(MemoryLayout<UserContext.Header>.offset(of: \.fields) == 0)
    }
}
