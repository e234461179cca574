public import Rewind

/// The builder form of a feedback loop, for Spin's `Spinner.initialState(…).feedback(…).reducer(…)`.
///
/// ```swift
/// let loop = FeedbackLoopBuilder
///     .initialState(Levels(left: 0, right: 10))
///     .feedback(Levels.leftFeedback)
///     .feedback(Levels.rightFeedback)
///     .reducer(Levels.reducer)
/// ```
///
/// ``Chain/reducer(_:middleware:onEffectFailure:)`` ends the chain and returns the loop, stopped.
public enum FeedbackLoopBuilder {
    /// Starts a loop description with its initial state.
    ///
    /// - Parameter state: The state before any event.
    /// - Returns: A description to add feedbacks to; the event type comes from the first one.
    public static func initialState<State: Sendable>(_ state: State) -> Start<State> {
        Start(state: state)
    }

    /// A loop description with only its initial state so far.
    public struct Start<State: Sendable>: Sendable {
        let state: State

        /// Adds the first feedback, which fixes the loop's event type.
        ///
        /// - Parameter feedback: One feedback of the loop.
        /// - Returns: The description with the feedback.
        public func feedback<Event>(_ feedback: Feedback<State, Event>) -> Chain<State, Event> {
            Chain(initialState: state, feedbacks: [feedback])
        }
    }

    /// A loop description with its initial state and feedbacks.
    public struct Chain<State: Sendable, Event: Sendable>: Sendable {
        let initialState: State
        let feedbacks: [Feedback<State, Event>]

        /// Adds a feedback.
        ///
        /// - Parameter feedback: The feedback; it sees each state after the ones added before it.
        /// - Returns: The description with the feedback.
        public func feedback(_ feedback: Feedback<State, Event>) -> Chain {
            Chain(initialState: initialState, feedbacks: feedbacks + [feedback])
        }

        /// Ends the description with the reducer and returns the loop, stopped.
        ///
        /// - Parameters:
        ///   - reducer: Folds events into the state.
        ///   - middleware: Watches every event (a recorder, for instance).
        ///   - onEffectFailure: Receives errors thrown by feedbacks and by middleware effects.
        /// - Returns: The loop; call ``FeedbackLoop/start()`` to run it.
        public func reducer(
            _ reducer: Reducer<State, Event>,
            middleware: Middleware<State, Event> = .none,
            onEffectFailure: @escaping @Sendable (EffectFailure) -> Void = EffectFailure.printToStandardError
        ) -> FeedbackLoop<State, Event> {
            FeedbackLoop(
                initialState: initialState, reducer: reducer, middleware: middleware,
                onEffectFailure: onEffectFailure, feedbacks: feedbacks
            )
        }
    }
}
