/// Thrown by ``Flow/run(_:_:as:dismissWhenAnswered:file:function:line:column:)`` when the scene
/// finished (``SceneOutput/finish()``) before the user provided a value: the user closed it.
///
/// A flow that lets the user back out catches it; one that does not lets it unwind the flow,
/// which dismisses every scene the flow presented.
public struct SceneEnded: Error, Sendable, Equatable, CustomStringConvertible {
    /// The scene's name.
    public let scene: String

    /// Creates the error.
    ///
    /// - Parameter scene: The scene's name.
    public init(scene: String) {
        self.scene = scene
    }

    /// `EnterCodeScene ended without a value`.
    public var description: String {
        "\(scene) ended without a value"
    }
}
