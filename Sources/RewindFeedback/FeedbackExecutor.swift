/// Where a feedback's async work runs.
///
/// By default (``concurrent``) each run is a task on the global concurrent executor. Give a
/// feedback a `TaskExecutor` of your own (a dedicated thread, a serial queue) with
/// ``executor(_:)``: its nonisolated async code then runs there, as Swift's task executor
/// preference makes it.
///
/// ```swift
/// let persist = Feedback<Editor, Editor.Input>("persist", on: .executor(databaseExecutor)) { state in
///     try await database.save(state.text)
///     return nil
/// }
/// ```
///
/// To run a feedback on an actor — the main actor for UI work — isolate its closure to that
/// actor, which is how Swift chooses where code runs: `Feedback("render") { @MainActor state in … }`.
/// Reactions (``Feedback/init(_:file:function:line:column:reaction:)``) have no executor: they
/// run on the loop's turn, synchronously, in the order they were declared.
public struct FeedbackExecutor: Sendable {
    let preference: (any TaskExecutor)?

    /// Tasks on the global concurrent executor.
    public static var concurrent: FeedbackExecutor { FeedbackExecutor(preference: nil) }

    /// Tasks that prefer `executor`: their nonisolated async code runs on it.
    ///
    /// - Parameter executor: The task executor.
    /// - Returns: The executor choice.
    public static func executor(_ executor: any TaskExecutor) -> FeedbackExecutor {
        FeedbackExecutor(preference: executor)
    }

    /// Starts `work` as a task on this executor.
    func task(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        if let preference {
            return Task(executorPreference: preference, operation: work)
        }
        return Task(operation: work)
    }
}
