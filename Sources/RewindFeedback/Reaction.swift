public import Rewind

/// A reaction of a ``cycle(inputs:initialState:reducer:reactions:middleware:onEffectFailure:file:function:line:column:)``:
/// it watches each input together with the state it produced, and answers with more inputs.
///
/// Cause-logic-effect's `(Observable<(State, Input)>) -> Observable<Input>`, with async
/// sequences:
///
/// ```swift
/// let save = Reaction<Editor, Editor.Input>("autosave") { changes in
///     changes.filter { $0.input == .edit }.map { change in
///         try await storage.save(change.state.text)
///         return .saved
///     }
/// }
/// ```
///
/// The inputs a reaction sends are recorded with a source naming it (origin
/// `ActionSource.Origin.feedback`).
public struct Reaction<State: Sendable, Input: Sendable>: Sendable {
    /// An input together with the state it produced.
    public typealias Change = (state: State, input: Input)

    let prepare: @Sendable (AsyncStream<Change>, @escaping @Sendable (Input) -> Void) -> @Sendable () async throws -> Void
    /// The source the reaction's inputs are recorded with.
    public let source: ActionSource

    /// Creates a reaction.
    ///
    /// - Parameters:
    ///   - name: A name for the log and for failure reports.
    ///   - transform: Called once, when the cycle starts, with every change to come; returns the
    ///     inputs to send back. A thrown error ends the reaction and goes to the cycle's failure
    ///     handler.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    public init<Inputs: AsyncSequence & Sendable>(
        _ name: String? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column,
        _ transform: @escaping @Sendable (AsyncStream<Change>) -> Inputs
    ) where Inputs.Element == Input {
        self.source = ActionSource(file: file, function: function, line: line, column: column, info: name, origin: .feedback)
        self.prepare = { changes, send in
            let inputs = transform(changes)
            return { try await forwardAll(of: inputs, to: send) }
        }
    }
}
