/// Values sent from any task, read in order by a test that awaits each one.
struct Signals<Value: Sendable>: Sendable {
    let stream: AsyncStream<Value>
    let continuation: AsyncStream<Value>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Value>.makeStream()
    }

    func send(_ value: Value) {
        continuation.yield(value)
    }

    /// The next value sent (or `nil` if the stream ended).
    func next() async -> Value? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}
