extension Reducer {
    /// Lifts this reducer onto a larger state and action, so a feature's reducer can run inside
    /// the app's.
    ///
    /// Actions that `action` does not extract are ignored; the rest change the sub-state that
    /// `state` points at.
    ///
    /// ```swift
    /// let app = Reducer.combine(
    ///     cartReducer.lift(state: \AppState.cart, action: \AppAction.cart),
    ///     catalogueReducer.lift(state: \AppState.catalogue, action: \AppAction.catalogue)
    /// )
    /// ```
    /// where `AppAction.cart` is a computed property that returns the payload of the `.cart`
    /// case, or `nil`.
    ///
    /// - Parameters:
    ///   - state: Where this reducer's state lives in the larger state.
    ///   - action: Extracts this reducer's action from the larger action, or returns `nil`.
    /// - Returns: A reducer over the larger state and action.
    @inlinable
    public func lift<GlobalState, GlobalAction>(
        state: any WritableKeyPath<GlobalState, State> & Sendable,
        action: @escaping @Sendable (GlobalAction) -> Action?
    ) -> Reducer<GlobalState, GlobalAction> {
        let reduce = self.reduce
        return Reducer<GlobalState, GlobalAction> { globalState, globalAction in
            guard let localAction = action(globalAction) else { return }
            reduce(&globalState[keyPath: state], localAction)
        }
    }

    /// Lifts this reducer onto a larger state, keeping the action type.
    ///
    /// - Parameter state: Where this reducer's state lives in the larger state.
    /// - Returns: A reducer over the larger state.
    @inlinable
    public func lift<GlobalState>(
        state: any WritableKeyPath<GlobalState, State> & Sendable
    ) -> Reducer<GlobalState, Action> {
        lift(state: state, action: { $0 })
    }

    /// Lifts this reducer onto a larger action, keeping the state type.
    ///
    /// - Parameter action: Extracts this reducer's action from the larger action, or returns `nil`.
    /// - Returns: A reducer over the larger action.
    @inlinable
    public func lift<GlobalAction>(
        action: @escaping @Sendable (GlobalAction) -> Action?
    ) -> Reducer<State, GlobalAction> {
        lift(state: \State.self, action: action)
    }

    /// Runs this reducer only while an optional state is present; actions that arrive while it
    /// is `nil` are ignored.
    ///
    /// - Returns: A reducer over the optional state.
    @inlinable
    public func optional() -> Reducer<State?, Action> {
        let reduce = self.reduce
        return Reducer<State?, Action> { state, action in
            guard state != nil else { return }
            reduce(&state!, action)
        }
    }
}
