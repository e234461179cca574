/// What every store offers — a ``Store`` and a ``StoreProjection`` of one alike: the current
/// state, dispatch, and observation of changes.
///
/// Conformers provide the three requirements; dispatch with a captured source, the state as an
/// `AsyncStream`, callback observation and scoping come from this protocol's extension.
public protocol StoreType<State, Action>: Sendable {
    /// The state type.
    associatedtype State: Sendable
    /// The action type.
    associatedtype Action: Sendable

    /// The current state, read synchronously.
    var state: State { get }

    /// Dispatches an action with an explicit source.
    ///
    /// - Parameters:
    ///   - action: The action to reduce.
    ///   - source: Where it came from.
    func dispatch(_ action: Action, from source: ActionSource)

    /// Subscribes to state changes. Underscored: the building block of ``states`` and
    /// ``observe(_:)``, which are what callers use.
    ///
    /// - Parameters:
    ///   - includingCurrent: Whether `deliver` receives the current state first. That first call
    ///     happens while the store's state lock is held, so such a `deliver` must only hand the
    ///     value on.
    ///   - deliver: Receives each new state, in timeline order.
    ///   - finish: Called when the store goes away.
    /// - Returns: A function that ends the subscription.
    func _subscribe(
        includingCurrent: Bool,
        deliver: @escaping @Sendable (State) -> Void,
        finish: (@Sendable () -> Void)?
    ) -> @Sendable () -> Void
}

extension StoreType {
    /// Dispatches an action, capturing the caller's location as its ``ActionSource``.
    ///
    /// Actions reduce one at a time, in the order they were dispatched. If the store is idle, the
    /// action is reduced (and middleware has seen it) before `dispatch` returns. If the store is
    /// busy — another thread is dispatching, or this call comes from inside a middleware or
    /// reducer — the action is queued and reduced as soon as the actions before it are done;
    /// it is never reduced re-entrantly.
    ///
    /// ```swift
    /// store.dispatch(.cart(.add(productID: product.id, quantity: 1)), info: "add button")
    /// ```
    ///
    /// - Parameters:
    ///   - action: The action to reduce.
    ///   - info: An optional note recorded with the source.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    @inlinable
    public func dispatch(
        _ action: Action,
        info: String? = nil,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        column: UInt = #column
    ) {
        dispatch(action, from: ActionSource(file: file, function: function, line: line, column: column, info: info))
    }

    /// The state now and after every action, as an async sequence that starts with the current
    /// state and keeps every change (unbounded buffer).
    ///
    /// ```swift
    /// for await state in store.states { render(state) }
    /// ```
    public var states: AsyncStream<State> {
        states(bufferingPolicy: .unbounded)
    }

    /// The state now and after every action, with a chosen buffer: `.bufferingNewest(1)` suits
    /// a UI that only needs the latest state.
    ///
    /// - Parameter bufferingPolicy: What to keep while the consumer is behind.
    /// - Returns: A stream that starts with the current state and ends when the store goes away.
    public func states(
        bufferingPolicy: AsyncStream<State>.Continuation.BufferingPolicy
    ) -> AsyncStream<State> {
        AsyncStream(bufferingPolicy: bufferingPolicy) { continuation in
            let unsubscribe = _subscribe(
                includingCurrent: true,
                deliver: { continuation.yield($0) },
                finish: { continuation.finish() }
            )
            continuation.onTermination = { _ in unsubscribe() }
        }
    }

    /// Calls `body` with the new state after every action, on the thread that reduced it, until
    /// the returned observation is cancelled or released.
    ///
    /// `body` is not called with the current state; read ``state`` for that.
    ///
    /// - Parameter body: Receives each new state.
    /// - Returns: The observation; keep it alive as long as you want calls.
    public func observe(_ body: @escaping @Sendable (State) -> Void) -> StoreObservation {
        StoreObservation(cancel: _subscribe(includingCurrent: false, deliver: body, finish: nil))
    }

    /// A view of this store limited to a part of its state and a subset of its actions, for a
    /// feature that should not know the whole app.
    ///
    /// ```swift
    /// let cart = store.scope(state: \.cart, action: AppAction.cart)
    /// cart.dispatch(.clear)   // dispatches AppAction.cart(.clear) to the store
    /// ```
    ///
    /// - Parameters:
    ///   - toLocalState: Projects the state.
    ///   - embed: Wraps a local action into this store's action.
    /// - Returns: The projection.
    public func scope<LocalState: Sendable, LocalAction: Sendable>(
        state toLocalState: @escaping @Sendable (State) -> LocalState,
        action embed: @escaping @Sendable (LocalAction) -> Action
    ) -> StoreProjection<LocalState, LocalAction> {
        StoreProjection(
            state: { toLocalState(self.state) },
            dispatch: { action, source in self.dispatch(embed(action), from: source) },
            subscribe: { includingCurrent, deliver, finish in
                self._subscribe(
                    includingCurrent: includingCurrent,
                    deliver: { deliver(toLocalState($0)) },
                    finish: finish
                )
            }
        )
    }
}
