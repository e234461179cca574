/// The user's side of a presented scene: the screen hands each value the user provides to
/// ``provide(_:)``, and calls ``finish()`` when it is done without one (a close button, a swipe
/// down).
///
/// A ``Stage`` receives the output with each presentation and connects its screen to it. Values
/// provided after the scene was dismissed, or after ``finish()``, are dropped.
public struct SceneOutput<Value: Sendable>: Sendable {
    let continuation: AsyncStream<Value>.Continuation

    /// Hands on a value the user provided.
    ///
    /// - Parameter value: The value.
    /// - Returns: Whether the flow can still receive it; `false` once the scene is finished or
    ///   dismissed.
    @discardableResult
    public func provide(_ value: Value) -> Bool {
        if case .enqueued = continuation.yield(value) { return true }
        return false
    }

    /// Ends the scene's values: the user is done with it. A flow waiting for a value gets
    /// ``SceneEnded``, and the scene is dismissed.
    public func finish() {
        continuation.finish()
    }
}
