public import Rewind

/// Where scenes are shown: the UI layer implements it, flows present scenes on it —
/// cause-logic-effect's stage functions as one protocol.
///
/// Two requirements: put a scene's screen on stage, connected to the output its user provides
/// values through, and take it off again. A flow calls ``dismiss(_:)`` once for every
/// presentation whose ``present(_:as:output:)`` returned, newest first when a flow unwinds.
///
/// <!-- snippet: requires UIKit -->
/// ```swift
/// @MainActor final class NavigationStage: Stage {
///     let navigation: UINavigationController
///     private var screens: [Presentation: UIViewController] = [:]
///
///     func present<Value>(_ scene: Scene<Value>, as presentation: Presentation, output: SceneOutput<Value>) async throws {
///         let screen = try makeScreen(scene, output)           // from scene.content
///         screens[presentation] = screen
///         navigation.pushViewController(screen, animated: true)
///     }
///     func dismiss(_ presentation: Presentation) async { … }
/// }
/// ```
///
/// The "Scenes and flows" article has the whole UIKit and SwiftUI recipes; ``TestStage`` is the
/// stage for tests. A stage isolated to the main actor satisfies the protocol as it is: its
/// methods are async, so flows call them from any task.
public protocol Stage: Sendable {
    /// Shows a scene.
    ///
    /// Returning means the scene is on stage, and will be dismissed; throwing means it is not
    /// (a screen the stage cannot build, nothing to push onto), and the error ends the flow.
    ///
    /// - Parameters:
    ///   - scene: The scene; the stage builds its screen from ``Scene/content``.
    ///   - presentation: This showing: its id, the scene's name and the placement asked for.
    ///   - output: Where the screen sends what the user provides, and says when it is done.
    func present<Value: Sendable>(
        _ scene: Scene<Value>, as presentation: Presentation, output: SceneOutput<Value>
    ) async throws

    /// Takes a presented scene off the stage. Called once per presentation.
    ///
    /// - Parameter presentation: The presentation ``present(_:as:output:)`` was given.
    func dismiss(_ presentation: Presentation) async
}

extension Stage {
    /// Shows a scene, waits for the first value the user provides, dismisses the scene and
    /// returns the value — a flow of one scene.
    ///
    /// ```swift
    /// let confirmed = try await stage.run(Scene<Bool>("ConfirmScene"), .present)
    /// ```
    ///
    /// - Parameters:
    ///   - scene: The scene.
    ///   - placement: How to place it; `.present` by default.
    ///   - file: The file of the presenting call (the caller's `#fileID` by default).
    ///   - function: The function of the presenting call (the caller's by default).
    ///   - line: The line of the presenting call (the caller's by default).
    ///   - column: The column of the presenting call (the caller's by default).
    /// - Returns: The first value the user provided.
    /// - Throws: ``SceneEnded`` if the scene finished without a value, `CancellationError` if the
    ///   awaiting task was cancelled, or what the stage threw presenting it. The scene is
    ///   dismissed in every case where it was presented.
    public func run<Value: Sendable>(
        _ scene: Scene<Value>, _ placement: ScenePlacement = .present,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column
    ) async throws -> Value {
        try await withFlow(on: self) { flow in
            try await flow.run(scene, placement, file: file, function: function, line: line, column: column)
        }
    }

    /// Shows a scene, waits for the first value the user provides, dispatches it to a store as
    /// an action, dismisses the scene and returns the value.
    ///
    /// The action is recorded with a source naming the scene (origin
    /// `ActionSource.Origin.scene`, the scene's name as info) at the call site of `run`.
    ///
    /// - Parameters:
    ///   - scene: The scene.
    ///   - placement: How to place it; `.present` by default.
    ///   - store: The store the value is dispatched to.
    ///   - action: Makes the action from the value.
    ///   - file: The file of the presenting call (the caller's `#fileID` by default).
    ///   - function: The function of the presenting call (the caller's by default).
    ///   - line: The line of the presenting call (the caller's by default).
    ///   - column: The column of the presenting call (the caller's by default).
    /// - Returns: The first value the user provided.
    /// - Throws: As ``run(_:_:file:function:line:column:)``; nothing is dispatched then.
    public func run<Value: Sendable, Store: StoreType>(
        _ scene: Scene<Value>, _ placement: ScenePlacement = .present,
        recordingInto store: Store, as action: @escaping @Sendable (Value) -> Store.Action,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column
    ) async throws -> Value {
        try await withFlow(on: self, recordingInto: store) { flow in
            try await flow.run(scene, placement, as: action, file: file, function: function, line: line, column: column)
        }
    }
}
