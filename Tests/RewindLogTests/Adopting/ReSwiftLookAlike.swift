/// A small look-alike of ReSwift's store and middleware for the "Adopting Rewind in an app"
/// recipe: actions are any `Action`, a middleware is a closure wrapping the next dispatch, the
/// reducer runs at the end of the chain, and `getState` may answer `nil`.
enum ReSwift {
    protocol Action {}
    protocol StateType {}
    typealias DispatchFunction = (any Action) -> Void
    typealias Middleware<State> = (@escaping DispatchFunction, @escaping () -> State?) -> (@escaping DispatchFunction) -> DispatchFunction
    typealias Reducer<State> = (any Action, State?) -> State

    /// The action a store dispatches to itself first, to make its state.
    struct ReSwiftInit: Action {}

    final class Store<State: StateType> {
        private(set) var state: State!
        private var dispatchFunction: DispatchFunction!

        init(reducer: @escaping Reducer<State>, state: State?, middleware: [Middleware<State>] = []) {
            self.state = state
            let last: DispatchFunction = { [unowned self] action in self.state = reducer(action, self.state) }
            dispatchFunction = middleware.reversed().reduce(last) { next, middleware in
                middleware({ [unowned self] in self.dispatch($0) }, { [unowned self] in self.state })(next)
            }
            if state == nil { dispatch(ReSwiftInit()) }
        }

        func dispatch(_ action: any Action) {
            dispatchFunction(action)
        }
    }
}
