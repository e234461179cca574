/// Thrown when a scene is presented through a ``Flow`` that has already ended — a flow that
/// escaped its ``withFlow(on:isolation:_:)``, or a child task that outlived it. The scene is not
/// left on stage.
public struct FlowEnded: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name of the scene that was not presented.
    public let scene: String

    /// Creates the error.
    ///
    /// - Parameter scene: The scene's name.
    public init(scene: String) {
        self.scene = scene
    }

    /// `EnterCodeScene was presented after its flow ended`.
    public var description: String {
        "\(scene) was presented after its flow ended"
    }
}
