public import Rewind
import Synchronization

/// Scenes presented in order, unwound as a whole — cause-logic-effect's flows, as plain async
/// functions.
///
/// ``withFlow(on:isolation:_:)`` gives a flow to its body; every scene the body presents
/// through it stays on stage until the body returns, throws or is cancelled, and then every one
/// still presented is dismissed, newest first:
///
/// ```swift
/// func forgotPassword(on stage: some Stage, store: Store<Account, Account.Action>) async throws {
///     try await withFlow(on: stage, recordingInto: store) { flow in
///         _ = try await flow.run(Scene<String>("EnterPhoneScene"), .push, as: Account.Action.phoneEntered)
///         _ = try await flow.run(Scene<String>("EnterCodeScene"), .push, as: Account.Action.codeEntered)
///         _ = try await flow.run(Scene<String>("NewPasswordScene"), .push, as: Account.Action.passwordChosen)
///     }   // NewPasswordScene, EnterCodeScene, EnterPhoneScene dismissed, in that order
/// }
/// ```
///
/// With a store (``withFlow(on:recordingInto:isolation:_:)``), what a scene returns is
/// dispatched as an action the moment the flow takes it, with a source naming the scene and
/// the presenting call (origin `ActionSource.Origin.scene`): a recorder's log then reads "the
/// user entered a phone number in EnterPhoneScene", and replays with the reducer alone, no
/// stage or UI involved.
///
/// A flow may be handed to functions that present more scenes (sub-flows unwinding with it), or
/// a sub-flow may open a flow of its own on ``stage`` to unwind separately. Scenes may be
/// presented from child tasks; they unwind in the order they were presented.
public final class Flow<Action: Sendable>: Sendable {
    /// The stage the flow presents on.
    public let stage: any Stage
    private let dispatch: (@Sendable (Action, ActionSource) -> Void)?
    private let shown = Mutex(Shown())

    private struct Shown {
        var onStage: [Presentation] = []
        var isOver = false
    }

    init(stage: any Stage, dispatch: (@Sendable (Action, ActionSource) -> Void)?) {
        self.stage = stage
        self.dispatch = dispatch
    }

    /// The scenes this flow presented that are still on stage, oldest first.
    public var presented: [Presentation] {
        shown.withLock { $0.onStage }
    }

    /// Presents a scene and waits for the first value the user provides through it. The scene
    /// stays on stage until the flow ends, unless `dismissWhenAnswered`.
    ///
    /// - Parameters:
    ///   - scene: The scene.
    ///   - placement: How to place it; `.present` by default.
    ///   - action: Makes the action dispatched for the value; `nil` dispatches nothing. Only a
    ///     flow made with a store dispatches.
    ///   - dismissWhenAnswered: Whether to dismiss the scene as soon as the value arrives (a
    ///     confirmation), instead of when the flow ends (a step of a wizard).
    ///   - file: The file of the presenting call (the caller's `#fileID` by default).
    ///   - function: The function of the presenting call (the caller's by default).
    ///   - line: The line of the presenting call (the caller's by default).
    ///   - column: The column of the presenting call (the caller's by default).
    /// - Returns: The first value the user provided.
    /// - Throws: ``SceneEnded`` if the scene finished without a value (it is dismissed at
    ///   once); `CancellationError` if the awaiting task was cancelled (the flow's end dismisses
    ///   it with the others); ``FlowEnded`` if the flow is over; what the stage threw presenting
    ///   it.
    public func run<Value: Sendable>(
        _ scene: Scene<Value>, _ placement: ScenePlacement = .present,
        as action: (@Sendable (Value) -> Action)? = nil, dismissWhenAnswered: Bool = false,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column
    ) async throws -> Value {
        let source = ActionSource(file: file, function: function, line: line, column: column, info: scene.name, origin: .scene)
        let (presentation, values) = try await present(scene, placement)
        var iterator = values.makeAsyncIterator()
        guard let value = await iterator.next() else {
            try Task.checkCancellation()
            await dismiss(presentation)
            throw SceneEnded(scene: scene.name)
        }
        record(value, as: action, from: source)
        if dismissWhenAnswered { await dismiss(presentation) }
        return value
    }

    /// Presents a scene whose user provides any number of values (a list to pick from, a
    /// search field), and returns them as an async sequence.
    ///
    /// The sequence ends when the scene finishes, which dismisses it; otherwise the scene stays
    /// on stage until the flow ends. Each value is dispatched as `action` when the sequence
    /// yields it.
    ///
    /// - Parameters:
    ///   - scene: The scene.
    ///   - placement: How to place it; `.present` by default.
    ///   - action: Makes the action dispatched for each value; `nil` dispatches nothing.
    ///   - file: The file of the presenting call (the caller's `#fileID` by default).
    ///   - function: The function of the presenting call (the caller's by default).
    ///   - line: The line of the presenting call (the caller's by default).
    ///   - column: The column of the presenting call (the caller's by default).
    /// - Returns: The values, in the order the user provided them.
    /// - Throws: ``FlowEnded`` if the flow is over, `CancellationError` if the task is
    ///   cancelled before the scene is shown, or what the stage threw presenting it.
    public func values<Value: Sendable>(
        of scene: Scene<Value>, _ placement: ScenePlacement = .present,
        as action: (@Sendable (Value) -> Action)? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column
    ) async throws -> SceneValues<Value> {
        let source = ActionSource(file: file, function: function, line: line, column: column, info: scene.name, origin: .scene)
        let (presentation, values) = try await present(scene, placement)
        return SceneValues(
            base: values,
            received: { [self] value in record(value, as: action, from: source) },
            finished: { [self] in await dismiss(presentation) }
        )
    }

    private func present<Value: Sendable>(
        _ scene: Scene<Value>, _ placement: ScenePlacement
    ) async throws -> (Presentation, AsyncStream<Value>) {
        try Task.checkCancellation()
        if shown.withLock({ $0.isOver }) { throw FlowEnded(scene: scene.name) }
        let presentation = Presentation(scene: scene.name, placement: placement)
        let (values, continuation) = AsyncStream<Value>.makeStream()
        try await stage.present(scene, as: presentation, output: SceneOutput(continuation: continuation))
        let isLate = shown.withLock { shown in
            if shown.isOver { return true }
            shown.onStage.append(presentation)
            return false
        }
        if isLate {
            // The flow ended while the stage was presenting (a child task outlived it): nothing
            // will unwind this scene, so take it off again now.
            await stage.dismiss(presentation)
            throw FlowEnded(scene: scene.name)
        }
        return (presentation, values)
    }

    private func record<Value>(_ value: Value, as action: ((Value) -> Action)?, from source: ActionSource) {
        if let dispatch, let action { dispatch(action(value), source) }
    }

    /// Dismisses one presentation if this flow still has it on stage; each is dismissed once.
    private func dismiss(_ presentation: Presentation) async {
        let isOnStage = shown.withLock { shown in
            guard let index = shown.onStage.firstIndex(of: presentation) else { return false }
            shown.onStage.remove(at: index)
            return true
        }
        if isOnStage { await stage.dismiss(presentation) }
    }

    /// Ends the flow: no more scenes, and every one still on stage is dismissed, newest first.
    func end() async {
        let remaining = shown.withLock { shown in
            shown.isOver = true
            defer { shown.onStage.removeAll() }
            return shown.onStage
        }
        for presentation in remaining.reversed() { await stage.dismiss(presentation) }
    }
}

/// Runs a flow on a stage: `body` presents scenes through the flow it is given, and when it
/// returns, throws or is cancelled, every scene still on stage is dismissed, newest first,
/// before this function returns or rethrows.
///
/// - Parameters:
///   - stage: Where the scenes are shown.
///   - isolation: The actor `body` runs on (the caller's by default).
///   - body: The flow.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func withFlow<Result>(
    on stage: some Stage,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Flow<Never>) async throws -> Result
) async throws -> Result {
    try await runFlow(Flow<Never>(stage: stage, dispatch: nil), body)
}

/// Runs a flow on a stage, dispatching what its scenes return to a store: `body` presents
/// scenes through the flow it is given, each value taken with an `as:` becomes an action
/// recorded with the scene's source (origin `ActionSource.Origin.scene`), and when `body`
/// returns, throws or is cancelled, every scene still on stage is dismissed, newest first.
///
/// - Parameters:
///   - stage: Where the scenes are shown.
///   - store: The store the scenes' values are dispatched to.
///   - isolation: The actor `body` runs on (the caller's by default).
///   - body: The flow.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func withFlow<Store: StoreType, Result>(
    on stage: some Stage,
    recordingInto store: Store,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Flow<Store.Action>) async throws -> Result
) async throws -> Result {
    try await runFlow(Flow<Store.Action>(stage: stage, dispatch: { store.dispatch($0, from: $1) }), body)
}

private func runFlow<Action, Result>(
    _ flow: Flow<Action>,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Flow<Action>) async throws -> Result
) async throws -> Result {
    do {
        let result = try await body(flow)
        await flow.end()
        return result
    } catch {
        await flow.end()
        throw error
    }
}
