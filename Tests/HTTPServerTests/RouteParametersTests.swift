import Testing

@testable import HTTPServer

/// The route's decoded parameters: two kept in place, more in an array, all read alike.
@Suite struct RouteParametersTests {
    @Test(arguments: 0...5)
    func everyParameter_isFoundByName_andKeptInPathOrder(count: Int) {
        var parameters = RouteParameters()
        for index in 0..<count { parameters.append(name: "p\(index)", value: "v\(index)") }
        #expect(parameters.count == count)
        #expect(parameters.isEmpty == (count == 0))
        #expect(parameters.all.map(\.name) == (0..<count).map { "p\($0)" })
        for index in 0..<count { #expect(parameters.value(named: "p\(index)") == "v\(index)") }
        #expect(parameters.value(named: "p\(count)") == nil)
    }

    @Test func aRepeatedName_readsItsFirstValue() {
        var parameters = RouteParameters()
        for value in ["a", "b", "c", "d"] { parameters.append(name: "x", value: value) }
        #expect(parameters.value(named: "x") == "a")
        #expect(parameters.all.map(\.value) == ["a", "b", "c", "d"])
    }

    @Test func names_areComparedAsTheyAreSpelled() {
        var parameters = RouteParameters()
        parameters.append(name: "user", value: "u")
        #expect(parameters.value(named: "User") == nil)
        #expect(parameters.value(named: "user") == "u")
    }

    @Test func aRequest_answersAMissingParameterEmpty() {
        var request = Request(head: .init(method: "GET", target: "/"), body: [], id: "t")
        request.parameters.append(name: "user", value: "caf\u{E9}")
        #expect(request.parameter("user") == "caf\u{E9}")
        #expect(request.parameter("key") == "")
    }
}
