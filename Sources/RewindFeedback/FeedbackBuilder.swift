/// Builds a loop's list of feedbacks declaratively, with `if`, `switch` and `for` as needed.
///
/// ```swift
/// let editor = FeedbackLoop(initialState: Editor(), reducer: Editor.reducer) {
///     loadFeedback
///     if configuration.autosave { autosaveFeedback }
///     for channel in channels { channel.feedback }
/// }
/// ```
@resultBuilder
public enum FeedbackBuilder<State: Sendable, Event: Sendable> {
    public static func buildExpression(_ feedback: Feedback<State, Event>) -> [Feedback<State, Event>] {
        [feedback]
    }

    public static func buildExpression(_ feedbacks: [Feedback<State, Event>]) -> [Feedback<State, Event>] {
        feedbacks
    }

    public static func buildBlock(_ components: [Feedback<State, Event>]...) -> [Feedback<State, Event>] {
        components.flatMap { $0 }
    }

    public static func buildOptional(_ component: [Feedback<State, Event>]?) -> [Feedback<State, Event>] {
        component ?? []
    }

    public static func buildEither(first component: [Feedback<State, Event>]) -> [Feedback<State, Event>] {
        component
    }

    public static func buildEither(second component: [Feedback<State, Event>]) -> [Feedback<State, Event>] {
        component
    }

    public static func buildArray(_ components: [[Feedback<State, Event>]]) -> [Feedback<State, Event>] {
        components.flatMap { $0 }
    }
}
