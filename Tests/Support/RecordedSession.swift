public import Rewind
public import RewindExamples
public import RewindLog

/// A scripted session recorded into a log, with what the live store did.
public struct RecordedSession<State: Sendable, Action: Sendable>: Sendable {
    /// The store after the session.
    public var store: Store<State, Action>
    /// Every action the store reduced, in order (seq n is `reduced[n - 1]`).
    public var reduced: [DispatchedAction<Action>]
    /// The state after each action (`states[n - 1]` is the state after seq n).
    public var states: [State]
}

/// Drives a fresh store with `user`, recording into `log` until `actions` actions have been
/// reduced, and closes the recorder.
public func recordSession<User: SimulatedUser>(
    into log: EventLog,
    app: AppIdentity,
    initialState: User.State,
    reducer: Reducer<User.State, User.Action>,
    effects: Middleware<User.State, User.Action>,
    user: User,
    actions: Int,
    configuration: RecorderConfiguration<User.State, User.Action> = RecorderConfiguration()
) async throws -> RecordedSession<User.State, User.Action> where User.State: Codable, User.Action: Codable {
    try await recordSession(
        into: .log(log), app: app, initialState: initialState, reducer: reducer, effects: effects, user: user, actions: actions,
        configuration: configuration
    )
}

/// `recordSession(into:…)` into any destination: a log file, or a PostgreSQL store.
public func recordSession<User: SimulatedUser>(
    into destination: RecordingDestination,
    app: AppIdentity,
    initialState: User.State,
    reducer: Reducer<User.State, User.Action>,
    effects: Middleware<User.State, User.Action>,
    user: User,
    actions: Int,
    configuration: RecorderConfiguration<User.State, User.Action> = RecorderConfiguration()
) async throws -> RecordedSession<User.State, User.Action> where User.State: Codable, User.Action: Codable {
    let reduced = Recorded<DispatchedAction<User.Action>>()
    let states = Recorded<User.State>()
    let recorder = Recorder<User.State, User.Action>(into: destination, app: app, configuration: configuration)
    let store = Store(
        initialState: initialState,
        reducer: reducer,
        middleware: .combine(
            recorder.middleware,
            effects,
            Middleware(didReduce: { dispatched, state, _ in
                reduced.append(dispatched)
                states.append(state)
            })
        )
    )
    var user = user
    await user.drive(store, while: { _ in reduced.all.count < actions })
    try await recorder.close()
    return RecordedSession(store: store, reduced: reduced.all, states: states.all)
}
