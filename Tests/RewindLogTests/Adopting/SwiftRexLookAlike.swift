/// A small look-alike of SwiftRex's store and middleware (the `receiveContext`/`handle` shape of
/// SwiftRex 0.7–0.8), for the "Adopting Rewind in an app" recipe: the names, signatures and
/// call order an app's code meets, nothing more. `SwiftRex.Middleware` is how an app that also
/// imports Rewind spells it too.
enum SwiftRex {
    typealias GetState<State> = () -> State

    /// Where SwiftRex says an action came from: `#file`, `#function`, `#line` and a note.
    struct ActionSource {
        var file: String
        var function: String
        var line: UInt
        var info: String?
    }

    struct AnyActionHandler<Action> {
        let dispatch: (Action, ActionSource) -> Void
    }

    /// What a middleware asks to run once the reducer has run.
    struct AfterReducer {
        let run: () -> Void
        static func `do`(_ run: @escaping () -> Void) -> AfterReducer { AfterReducer(run: run) }
        static func doNothing() -> AfterReducer { AfterReducer {} }
    }

    protocol Middleware {
        associatedtype InputActionType
        associatedtype OutputActionType
        associatedtype StateType
        func receiveContext(getState: @escaping GetState<StateType>, output: AnyActionHandler<OutputActionType>)
        func handle(action: InputActionType, from dispatcher: ActionSource, afterReducer: inout AfterReducer)
    }

    /// The store: the middleware sees each action before the reducer, its `afterReducer` runs
    /// after; actions a middleware outputs are dispatched next, in order.
    final class ReduxStoreBase<Action, State, M: Middleware> where M.InputActionType == Action, M.OutputActionType == Action, M.StateType == State {
        private(set) var state: State
        private let reducer: (Action, inout State) -> Void
        private let middleware: M

        init(initialState: State, reducer: @escaping (Action, inout State) -> Void, middleware: M) {
            (state, self.reducer, self.middleware) = (initialState, reducer, middleware)
            middleware.receiveContext(getState: { [unowned self] in state }, output: AnyActionHandler { [unowned self] action, source in
                dispatch(action, from: source)
            })
        }

        func dispatch(_ action: Action, file: String = #file, function: String = #function, line: UInt = #line, info: String? = nil) {
            dispatch(action, from: ActionSource(file: file, function: function, line: line, info: info))
        }

        private func dispatch(_ action: Action, from source: ActionSource) {
            var afterReducer = AfterReducer.doNothing()
            middleware.handle(action: action, from: source, afterReducer: &afterReducer)
            reducer(action, &state)
            afterReducer.run()
        }
    }
}
