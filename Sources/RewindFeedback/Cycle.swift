public import Rewind
import Synchronization

/// Builds a cause-logic-effect state machine: inputs (causes) go through a reducer (logic), and
/// reactions (effects) answer each change with more inputs. Returns the states.
///
/// ```swift
/// let states = cycle(
///     inputs: [taps.map { _ in Counter.Input.increment }],
///     initialState: Counter(),
///     reducer: Counter.reducer,
///     reactions: [Counter.resetAtTen],
///     middleware: recorder.middleware
/// )
/// for await counter in states { label.text = "\(counter.count)" }
/// ```
///
/// The cycle runs on a `Store`: middleware (a recorder) sees every input, inputs from the
/// sources are recorded with the call site of `cycle` and `input 0`, `input 1`… as info, and
/// reactions' inputs with the reaction's source. The returned stream starts with the initial
/// state and has the state after every input. The cycle lives as long as the stream is being
/// consumed: when the consuming task is cancelled or stops iterating, every input and reaction
/// is cancelled.
///
/// Screens, the other half of cause-logic-effect, are ``Scene``s presented by a ``Flow`` on a
/// ``Stage``.
///
/// - Parameters:
///   - inputs: The causes; each sequence is read in its own task until it ends.
///   - initialState: The state before any input.
///   - reducer: The logic. It must be pure.
///   - reactions: The effects.
///   - middleware: Watches every input, as on a store.
///   - onEffectFailure: Receives errors thrown by reactions and by middleware effects.
///   - file: The file recorded as the source (the caller's `#fileID` by default).
///   - function: The function recorded as the source (the caller's by default).
///   - line: The line recorded as the source (the caller's by default).
///   - column: The column recorded as the source (the caller's by default).
/// - Returns: The states, starting with `initialState`.
public func cycle<State: Sendable, Input: Sendable>(
    inputs: [any AsyncSequence<Input, Never> & Sendable],
    initialState: State,
    reducer: Reducer<State, Input>,
    reactions: [Reaction<State, Input>] = [],
    middleware: Middleware<State, Input> = .none,
    onEffectFailure: @escaping @Sendable (EffectFailure) -> Void = EffectFailure.printToStandardError,
    file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column
) -> AsyncStream<State> {
    let changes = reactions.map { _ in AsyncStream<Reaction<State, Input>.Change>.makeStream() }
    let feedReactions = Middleware<State, Input>(didReduce: { dispatched, state, _ in
        for change in changes { change.continuation.yield((state, dispatched.action)) }
    })
    let store = Store(
        initialState: initialState,
        reducer: reducer,
        middleware: .combine(middleware, feedReactions),
        onEffectFailure: onEffectFailure
    )
    let (states, output) = AsyncStream<State>.makeStream()
    let unsubscribe = store._subscribe(
        includingCurrent: true,
        deliver: { output.yield($0) },
        finish: { output.finish() }
    )

    var tasks: [Task<Void, Never>] = []
    for (reaction, change) in zip(reactions, changes) {
        let source = reaction.source
        let operation = reaction.prepare(change.stream) { input in store.dispatch(input, from: source) }
        tasks.append(Task {
            do {
                try await operation()
            } catch is CancellationError {
            } catch {
                if !Task.isCancelled { onEffectFailure(EffectFailure(error: error, source: source, id: nil)) }
            }
        })
    }
    for (index, sequence) in inputs.enumerated() {
        let source = ActionSource(
            file: file, function: function, line: line, column: column, info: "input \(index)", origin: .call
        )
        tasks.append(Task { await dispatchAll(of: sequence, to: store, from: source) })
    }

    let tasksToCancel = tasks
    output.onTermination = { _ in
        // Holding the store here keeps the cycle alive exactly as long as its states are read.
        withExtendedLifetime(store) {
            unsubscribe()
            for task in tasksToCancel { task.cancel() }
            for change in changes { change.continuation.finish() }
        }
    }
    return states
}

private func dispatchAll<Inputs: AsyncSequence, State: Sendable>(
    of inputs: Inputs, to store: Store<State, Inputs.Element>, from source: ActionSource
) async where Inputs.Failure == Never, Inputs.Element: Sendable {
    for await input in inputs {
        if Task.isCancelled { return }
        store.dispatch(input, from: source)
    }
}
