@preconcurrency public import OpenCombine
public import Rewind

extension StoreType {
    /// Dispatches every value `publisher` emits, until it finishes or the returned cancellable
    /// is cancelled or released.
    ///
    /// ```swift
    /// store.dispatch(from: reloadButton.taps.map { _ in .catalogue(.load(at: Date())) }, info: "reload button")
    ///     .store(in: &cancellables)
    /// ```
    ///
    /// Each action is recorded with the call site of this method as its source.
    ///
    /// - Parameters:
    ///   - publisher: The actions.
    ///   - info: An optional note for their source.
    ///   - file: The file recorded as the source (the caller's `#fileID` by default).
    ///   - function: The function recorded as the source (the caller's by default).
    ///   - line: The line recorded as the source (the caller's by default).
    ///   - column: The column recorded as the source (the caller's by default).
    /// - Returns: The subscription.
    public func dispatch<Actions: Publisher>(
        from publisher: Actions,
        info: String? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line, column: UInt = #column
    ) -> AnyCancellable where Actions.Output == Action, Actions.Failure == Never {
        let source = ActionSource(file: file, function: function, line: line, column: column, info: info)
        return publisher.sink { action in self.dispatch(action, from: source) }
    }
}

extension Publisher where Failure == Never, Output: Sendable {
    /// This publisher's values as an async stream, for code that awaits: the subscription lasts
    /// until the publisher finishes or the stream's consumer stops.
    public var asyncValues: AsyncStream<Output> {
        let (stream, continuation) = AsyncStream<Output>.makeStream()
        let subscription = CancellableBox(sink(
            receiveCompletion: { _ in continuation.finish() },
            receiveValue: { continuation.yield($0) }
        ))
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }
}

/// Carries an `AnyCancellable` (not `Sendable`: OpenCombine predates it) into a termination
/// handler.
// @unchecked: `cancel()` is the only call made, once, from a stream's termination handler or at
// the end of the task that owns the subscription; `AnyCancellable` itself is not thread-safe.
final class CancellableBox: @unchecked Sendable {
    private let cancellable: AnyCancellable

    init(_ cancellable: AnyCancellable) {
        self.cancellable = cancellable
    }

    func cancel() {
        cancellable.cancel()
    }
}
