import Rewind
import Testing

@Suite("Reducer")
struct ReducerTests {
    struct App: Equatable {
        var counter = Counter()
        var other = 0
        var optional: Counter?
    }

    enum AppAction: Equatable {
        case counter(CounterAction)
        case other

        var counter: CounterAction? {
            if case let .counter(action) = self { action } else { nil }
        }
    }

    @Test("combine runs reducers in order, each seeing the previous one's result")
    func combineRunsInOrder() {
        let double = Reducer<Counter, CounterAction> { state, _ in state.count *= 2 }
        var state = Counter(count: 1)
        Reducer.combine(counterReducer, double)(&state, .increment)
        #expect(state.count == 4)  // (1 + 1) * 2, not 1 * 2 + 1

        var reversed = Counter(count: 1)
        double.combined(with: counterReducer)(&reversed, .increment)
        #expect(reversed.count == 3)
    }

    @Test("a lifted reducer changes only its sub-state and ignores other actions")
    func liftOntoSubStateAndAction() {
        let app = counterReducer.lift(state: \App.counter, action: \AppAction.counter)
        var state = App()
        app(&state, .counter(.add(5)))
        app(&state, .other)
        #expect(state == App(counter: Counter(count: 5), other: 0))
    }

    @Test("lifting over state only or action only")
    func partialLifts() {
        var state = App()
        counterReducer.lift(state: \App.counter)(&state, .increment)
        #expect(state.counter.count == 1)

        var counter = Counter()
        counterReducer.lift(action: \AppAction.counter)(&counter, .counter(.decrement))
        counterReducer.lift(action: \AppAction.counter)(&counter, .other)
        #expect(counter.count == -1)
    }

    @Test("an optional reducer runs only while its state is present")
    func optionalState() {
        let reducer = counterReducer.optional().lift(state: \App.optional)
        var state = App()
        reducer(&state, .increment)
        #expect(state.optional == nil)
        state.optional = Counter()
        reducer(&state, .increment)
        #expect(state.optional?.count == 1)
    }

    @Test("combining nothing is the identity")
    func emptyCombine() {
        var state = Counter(count: 3)
        Reducer<Counter, CounterAction>.combine([])(&state, .increment)
        #expect(state.count == 3)
    }
}
