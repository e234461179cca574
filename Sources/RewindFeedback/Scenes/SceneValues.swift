/// The values the user provides through a scene presented with
/// ``Flow/values(of:_:as:file:function:line:column:)``, in order; the sequence ends when the
/// scene finishes, and ending dismisses it.
///
/// One task iterates it (the values are not shared between iterators).
public struct SceneValues<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    public typealias Failure = Never

    let base: AsyncStream<Value>
    let received: @Sendable (Value) -> Void
    let finished: @Sendable () async -> Void

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), received: received, finished: finished)
    }

    /// The iterator of ``SceneValues``.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Value>.Iterator
        let received: @Sendable (Value) -> Void
        let finished: @Sendable () async -> Void

        public mutating func next() async -> Value? {
            await next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Value? {
            guard let value = await base.next(isolation: actor) else {
                // Cancelled: the flow's end dismisses the scene with the others, newest first.
                if !Task.isCancelled { await finished() }
                return nil
            }
            received(value)
            return value
        }
    }
}
