@preconcurrency public import OpenCombine
import Rewind
public import RewindFeedback

extension Feedback {
    /// An effect whose events come from a publisher made for each state — Spin's
    /// `Feedback(effect: (State) -> AnyPublisher<Event, Never>)`.
    ///
    /// ```swift
    /// let ticking = Feedback<Stopwatch, Stopwatch.Event>("tick", publisher: { state in
    ///     state.isRunning ? clock.ticks.map { _ in .tick }.eraseToAnyPublisher() : Empty().eraseToAnyPublisher()
    /// })
    /// ```
    ///
    /// With `FeedbackStrategy.cancelOnNewState` the subscription for the previous state is
    /// cancelled when a new state arrives.
    ///
    /// - Parameters:
    ///   - name: A name for the log and for failure reports.
    ///   - strategy: What to do with a running subscription when a new state arrives.
    ///   - executor: Where the events are forwarded from.
    ///   - effect: Returns the events for a state.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public init<Events: Publisher>(
        _ name: String? = nil,
        strategy: FeedbackStrategy = .cancelOnNewState,
        on executor: FeedbackExecutor = .concurrent,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        publisher effect: @escaping @Sendable (State) -> Events
    ) where Events.Output == Event, Events.Failure == Never, Events: SendableMetatype {
        self.init(
            name, strategy: strategy, on: executor, file: file, function: function, line: line, column: column,
            effect: { state in effect(state).asyncValues }
        )
    }

    /// A stream feedback written with publishers: one transformation of the publisher of states
    /// into a publisher of events, for the loop's whole life — Spin's
    /// `Feedback(effect: (AnyPublisher<State, Never>) -> AnyPublisher<Event, Never>)`.
    ///
    /// - Parameters:
    ///   - name: A name for the log and for failure reports.
    ///   - executor: Where the states are fed to the publisher.
    ///   - transform: Turns the states into events.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public init<Events: Publisher>(
        _ name: String? = nil,
        on executor: FeedbackExecutor = .concurrent,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        statePublisher transform: @escaping @Sendable (AnyPublisher<State, Never>) -> Events
    ) where Events.Output == Event, Events.Failure == Never, Events: SendableMetatype {
        self.init(
            body: .stream { states, emit in
                // Subscribed now, as the loop starts, so the first state is not missed.
                let subject = PassthroughSubject<State, Never>()
                let subscription = CancellableBox(transform(subject.eraseToAnyPublisher()).sink { emit($0) })
                let feed = SubjectBox(subject)
                return {
                    defer { subscription.cancel() }
                    for await state in states { feed.send(state) }
                }
            },
            source: Self.source(name, file: file, function: function, line: line, column: column)
        )
        self.executor = executor
    }
}

/// Carries a subject (not `Sendable`: OpenCombine predates it) into the task that feeds it.
// @unchecked: OpenCombine's subjects lock around `send`, and only one task feeds this one.
final class SubjectBox<Value>: @unchecked Sendable {
    private let subject: PassthroughSubject<Value, Never>

    init(_ subject: PassthroughSubject<Value, Never>) {
        self.subject = subject
    }

    func send(_ value: Value) {
        subject.send(value)
    }
}
