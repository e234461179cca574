import Foundation
import Rewind
import RewindTestSupport
import Testing

@Suite("ActionSource")
struct ActionSourceTests {
    @Test("dispatch captures the caller's #fileID, function and line")
    func dispatchCapturesCallSite() {
        let seen = Recorded<ActionSource>()
        let store = Store(
            initialState: Counter(),
            reducer: counterReducer,
            middleware: Middleware(didReduce: { dispatched, _, _ in seen.append(dispatched.source) })
        )
        let line: UInt = #line + 1
        store.dispatch(.increment, info: "tapped")

        let source = try! #require(seen.all.first)
        #expect(source.file == "RewindTests/ActionSourceTests.swift")
        #expect(source.function == "dispatchCapturesCallSite()")
        #expect(source.line == line)
        #expect(source.info == "tapped")
        #expect(source.origin == .call)
    }

    @Test("an absolute path is cut to its last two components")
    func absolutePathIsShortened() {
        let source = ActionSource(file: "/home/ci/build/App/Sources/Cart/CartView.swift", line: 3)
        #expect(source.file == "Cart/CartView.swift")
        #expect(ActionSource(file: "Cart/CartView.swift").file == "Cart/CartView.swift")
    }

    @Test("round-trips through JSON")
    func codableRoundTrip() throws {
        let source = ActionSource(file: "App/View.swift", function: "tap()", line: 9, column: 4, info: "ünïcode ✓", origin: .effect)
        let decoded = try JSONDecoder().decode(ActionSource.self, from: JSONEncoder().encode(source))
        #expect(decoded == source)
    }

    @Test("decodes sources that lack column, info and origin")
    func decodesMinimalSources() throws {
        let json = Data(#"{"file":"App/View.swift","function":"tap()","line":9}"#.utf8)
        let decoded = try JSONDecoder().decode(ActionSource.self, from: json)
        #expect(decoded == ActionSource(file: "App/View.swift", function: "tap()", line: 9, column: 0, info: nil, origin: .call))
    }

    @Test("description names file, line, function, origin and note")
    func description() {
        let source = ActionSource(file: "App/View.swift", function: "tap()", line: 9, info: "swipe", origin: .middleware)
        #expect(source.description == "App/View.swift:9 tap() [middleware] — swipe")
        #expect(ActionSource(file: "A/B.swift", function: "f()", line: 1).description == "A/B.swift:1 f()")
    }
}
