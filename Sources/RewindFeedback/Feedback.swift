public import Rewind

/// A rule of a ``FeedbackLoop``: it looks at the loop's state and answers with events.
///
/// Four shapes, after Spin's:
/// - a **reaction** decides at once, on the loop's turn: `(State) -> Event?`;
/// - an **effect** does async work for each state: `(State) async throws -> Event?`, or
///   `(State) -> some AsyncSequence<Event>` for several events;
/// - a **stream** feedback transforms the whole stream of states:
///   `(AsyncStream<State>) -> some AsyncSequence<Event>`.
///
/// ```swift
/// let load = Feedback<Screen, Screen.Event>("load") { state in
///     try await .loaded(api.fetch(state.query))
/// }
/// .filtered { $0.isLoading }
/// ```
///
/// With a trailing closure, Swift picks the shape from the closure: one that neither awaits nor
/// throws is a reaction; mark it `async` (or `await` inside it) to make it an effect, as in
/// `Feedback("load") { (state: Screen) async in … }`.
///
/// Every event a feedback produces reaches the loop with a source naming the feedback: its
/// declaration's file and line, origin `ActionSource.Origin.feedback` and its name as
/// `ActionSource.info`, so a recorded loop shows which rule sent what.
///
/// Modifiers: ``filtered(by:)`` (run only for states that pass), ``lensing(on:)-((Whole)->State)`` (run on a part
/// of a larger state), ``executing(on:)`` and ``strategy(_:)``.
public struct Feedback<State: Sendable, Event: Sendable>: Sendable {
    /// Where events go: the loop binds it to its inbox when it starts.
    package typealias Emit = @Sendable (Event) -> Void

    package enum Body: Sendable {
        /// Decided synchronously, on the loop's turn.
        case reaction(@Sendable (State) -> Event?)
        /// Async work started for each state the feedback accepts.
        case effect(@Sendable (State, Emit) async throws -> Void)
        /// Called once when the loop starts, with the stream of states it will see; returns the
        /// work that runs for the loop's life. Subscribing in the synchronous part (a gear, for
        /// instance) means nothing sent after `start` is missed.
        case stream(@Sendable (AsyncStream<State>, @escaping Emit) -> @Sendable () async throws -> Void)
    }

    let body: Body
    /// The source every event of this feedback is recorded with.
    public let source: ActionSource
    /// Runs the feedback only for states that pass; `nil` accepts all.
    var accepts: (@Sendable (State) -> Bool)?
    var strategy: FeedbackStrategy = .cancelOnNewState
    package var executor: FeedbackExecutor = .concurrent

    package init(body: Body, source: ActionSource) {
        self.body = body
        self.source = source
    }

    /// A reaction: decides synchronously, on the loop's turn, which event (if any) a state calls
    /// for.
    ///
    /// Reactions run in the order they were declared, one turn at a time, which makes a loop
    /// made of reactions deterministic: the same initial state and events give the same
    /// sequence of states every run.
    ///
    /// ```swift
    /// let rising = Feedback<Levels, Levels.Event>("left") { levels in
    ///     levels.left < levels.right ? .raiseLeft : nil
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for the log and for failure reports.
    ///   - reaction: Returns the event the state calls for, or `nil`. It must be quick.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public init(
        _ name: String? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        reaction: @escaping @Sendable (State) -> Event?
    ) {
        self.init(
            body: .reaction(reaction),
            source: Self.source(name, file: file, function: function, line: line, column: column)
        )
    }

    /// An effect: async work for each state, answering with at most one event.
    ///
    /// With ``FeedbackStrategy/cancelOnNewState`` (the default) the work for the previous state
    /// is cancelled when a new state arrives.
    ///
    /// ```swift
    /// let search = Feedback<Screen, Screen.Event>("search") { state in
    ///     guard let query = state.pendingQuery else { return nil }
    ///     return .results(try await api.search(query))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for the log and for failure reports.
    ///   - strategy: What to do with running work when a new state arrives.
    ///   - executor: Where the work runs.
    ///   - effect: The work. A thrown error (other than cancellation) is reported to the loop's
    ///     failure handler; the loop goes on.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public init(
        _ name: String? = nil,
        strategy: FeedbackStrategy = .cancelOnNewState,
        on executor: FeedbackExecutor = .concurrent,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        effect: @escaping @Sendable (State) async throws -> Event?
    ) {
        self.init(
            body: .effect { state, emit in
                if let event = try await effect(state), !Task.isCancelled { emit(event) }
            },
            source: Self.source(name, file: file, function: function, line: line, column: column)
        )
        self.strategy = strategy
        self.executor = executor
    }

    /// An effect that answers a state with a sequence of events.
    ///
    /// ```swift
    /// let ticks = Feedback<Player, Player.Event>("ticks") { state in
    ///     state.isPlaying ? clock.ticks(every: .seconds(1)) : nil
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for the log and for failure reports.
    ///   - strategy: What to do with a running sequence when a new state arrives.
    ///   - executor: Where the sequence is iterated.
    ///   - effect: Returns the events for a state, or `nil` for none.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public init<Events: AsyncSequence & Sendable>(
        _ name: String? = nil,
        strategy: FeedbackStrategy = .cancelOnNewState,
        on executor: FeedbackExecutor = .concurrent,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        effect: @escaping @Sendable (State) -> Events?
    ) where Events.Element == Event {
        self.init(
            body: .effect { state, emit in
                guard let events = effect(state) else { return }
                try await forwardAll(of: events, to: emit)
            },
            source: Self.source(name, file: file, function: function, line: line, column: column)
        )
        self.strategy = strategy
        self.executor = executor
    }

    /// A stream feedback: one transformation of the loop's stream of states into events, for the
    /// loop's whole life.
    ///
    /// `transform` is called when the loop starts; the stream it gets begins with the state at
    /// that moment and then has the state after every turn.
    ///
    /// ```swift
    /// let searchAsYouType = Feedback<Search, Search.Event>("search as you type", states: { states in
    ///     states.map(\.query).filter { $0.count >= 3 }.map(Search.Event.run)
    /// })
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for the log and for failure reports.
    ///   - executor: Where the sequence is iterated.
    ///   - transform: Turns the states into events.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public init<Events: AsyncSequence & Sendable>(
        _ name: String? = nil,
        on executor: FeedbackExecutor = .concurrent,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        states transform: @escaping @Sendable (AsyncStream<State>) -> Events
    ) where Events.Element == Event {
        self.init(
            body: .stream { states, emit in
                let events = transform(states)
                return { try await forwardAll(of: events, to: emit) }
            },
            source: Self.source(name, file: file, function: function, line: line, column: column)
        )
        self.executor = executor
    }

    package static func source(
        _ name: String?, file: String, function: String, line: UInt, column: UInt
    ) -> ActionSource {
        ActionSource(file: file, function: function, line: line, column: column, info: name, origin: .feedback)
    }
}

// MARK: - Modifiers

extension Feedback {
    /// This feedback, run only for states that pass `predicate` (Spin's `filteredBy`).
    ///
    /// For an effect with ``FeedbackStrategy/cancelOnNewState``, a state that fails the
    /// predicate still cancels the running work: the state it was working for is gone, and the
    /// feedback has nothing to do in the new one.
    ///
    /// - Parameter predicate: Whether the feedback runs for a state. Several filters must all pass.
    /// - Returns: The filtered feedback.
    public func filtered(by predicate: @escaping @Sendable (State) -> Bool) -> Feedback {
        var copy = self
        if let previous = accepts {
            copy.accepts = { previous($0) && predicate($0) }
        } else {
            copy.accepts = predicate
        }
        return copy
    }

    /// This feedback with another execution strategy.
    ///
    /// - Parameter strategy: What to do with a run still going when the next state arrives.
    /// - Returns: The feedback.
    public func strategy(_ strategy: FeedbackStrategy) -> Feedback {
        var copy = self
        copy.strategy = strategy
        return copy
    }

    /// This feedback with its async work on another executor.
    ///
    /// - Parameter executor: Where the work runs.
    /// - Returns: The feedback.
    public func executing(on executor: FeedbackExecutor) -> Feedback {
        var copy = self
        copy.executor = executor
        return copy
    }

    /// This feedback, run on a part of a larger state (Spin's `lensingOn`): it sees only what
    /// `lens` extracts, so it can be written and tested without the whole state.
    ///
    /// ```swift
    /// let refresh = Feedback<Session, Session.Event>("refresh token") { session in session.expired ? .refresh : nil }
    /// let app = refresh.lensing(on: \AppState.session)
    /// ```
    ///
    /// - Parameter lens: Extracts this feedback's state from the larger one.
    /// - Returns: A feedback over the larger state.
    public func lensing<Whole: Sendable>(
        on lens: @escaping @Sendable (Whole) -> State
    ) -> Feedback<Whole, Event> {
        let lensedBody: Feedback<Whole, Event>.Body
        switch body {
        case let .reaction(reaction):
            lensedBody = .reaction { reaction(lens($0)) }
        case let .effect(effect):
            lensedBody = .effect { whole, emit in try await effect(lens(whole), emit) }
        case let .stream(prepare):
            lensedBody = .stream { wholes, emit in
                let (parts, continuation) = AsyncStream<State>.makeStream()
                let work = prepare(parts, emit)
                return {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await whole in wholes { continuation.yield(lens(whole)) }
                            continuation.finish()
                        }
                        group.addTask { try await work() }
                        try await group.waitForAll()
                    }
                }
            }
        }
        var lensed = Feedback<Whole, Event>(body: lensedBody, source: source)
        lensed.strategy = strategy
        lensed.executor = executor
        if let accepts {
            lensed.accepts = { accepts(lens($0)) }
        }
        return lensed
    }

    /// This feedback, run on a part of a larger state picked by a key path.
    ///
    /// - Parameter keyPath: Where this feedback's state lives in the larger one.
    /// - Returns: A feedback over the larger state.
    public func lensing<Whole: Sendable>(
        on keyPath: any KeyPath<Whole, State> & Sendable
    ) -> Feedback<Whole, Event> {
        lensing(on: { $0[keyPath: keyPath] })
    }
}

/// Hands each element of `sequence` to `send` until the sequence ends or the task is cancelled;
/// how every sequence-returning feedback and reaction delivers its events.
func forwardAll<Elements: AsyncSequence>(
    of sequence: Elements, to send: (Elements.Element) -> Void
) async throws {
    for try await element in sequence {
        if Task.isCancelled { return }
        send(element)
    }
}
