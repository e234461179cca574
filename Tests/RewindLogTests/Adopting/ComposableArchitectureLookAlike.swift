/// A small look-alike of The Composable Architecture's `Reducer` and `Store` for the "Adopting
/// Rewind in an app" recipe: a reducer reduces `inout` state and returns an effect; the store,
/// on the main actor, sends an effect's actions back in. The send site is nowhere in it.
enum ComposableArchitecture {
    struct Effect<Action> {
        fileprivate let actions: [Action]
        static var none: Effect { Effect(actions: []) }
        static func send(_ action: Action) -> Effect { Effect(actions: [action]) }
    }

    protocol Reducer<State, Action> {
        associatedtype State
        associatedtype Action
        func reduce(into state: inout State, action: Action) -> Effect<Action>
    }

    @MainActor
    final class Store<State, Action> {
        private(set) var state: State
        private let reduce: (inout State, Action) -> Effect<Action>

        init<R: Reducer>(initialState: State, reducer: () -> R) where R.State == State, R.Action == Action {
            let reducer = reducer()
            state = initialState
            reduce = { reducer.reduce(into: &$0, action: $1) }
        }

        func send(_ action: Action) {
            let effect = reduce(&state, action)
            for next in effect.actions { send(next) }
        }
    }
}
